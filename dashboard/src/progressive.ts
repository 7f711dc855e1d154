// A long list shown in parts: the first screenful with the page, the rest in blocks while the
// browser is idle. Building and laying out 500 table rows at once holds the first paint back by
// half a second on a slow machine; a screenful is a few milliseconds.
import { Component, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const idle: (fn: () => void) => number = (globalThis as any).requestIdleCallback ?? ((fn: () => void) => setTimeout(fn, 1));
const cancelIdle: (id: number) => void = (globalThis as any).cancelIdleCallback ?? clearTimeout;

/**
 * The blocks of `total` items to render now, as [from, to) ranges: the first `first` items at
 * once, then one more block of `size` at each idle moment until all are shown. The blocks only
 * grow, so a reload of the data keeps what was already shown.
 */
export function useProgressiveBlocks(total: number, first = 40, size = 80): Array<[number, number]> {
  const [count, setCount] = useState(first);
  useEffect(() => {
    if (count >= total) return;
    const id = idle(() => setCount((c) => c + size));
    return () => cancelIdle(id);
  }, [count, total]);
  const blocks: Array<[number, number]> = [];
  for (let from = 0, to = first; from < Math.min(count, total); from = to, to += size) blocks.push([from, Math.min(to, total)]);
  return blocks;
}

/**
 * One block of rows, rendered again only when its data or range change: adding a block must not
 * diff the rows already shown (that would make the whole list quadratic).
 */
export class Block<T> extends Component<{ items: T; from: number; to: number; render: (items: T, from: number, to: number) => ComponentChildren }> {
  shouldComponentUpdate(next: Block<T>['props']) {
    return next.items !== this.props.items || next.from !== this.props.from || next.to !== this.props.to;
  }
  render() {
    return this.props.render(this.props.items, this.props.from, this.props.to);
  }
}
