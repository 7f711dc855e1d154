// The time axis's labels (pure: components/chart.tsx draws them, a unit test reads them).
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * An x-axis tick, in ISO order and 24-hour time, never the same as its neighbour's: the time, with
 * seconds when ticks are less than a minute apart (else two would read 10:02); with the month and
 * day when the row covers more than a day (else 6-hourly ticks over a week repeat 09:00 15:00 …);
 * the date alone (and the time when not midnight) when ticks are a day or more apart.
 */
export function tick(sec: number, spacingSec: number, rowSec = spacingSec): string {
  const d = new Date(sec * 1000);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}${spacingSec < 60 ? `:${pad(d.getSeconds())}` : ''}`;
  if (spacingSec >= 86_400) return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}${d.getHours() || d.getMinutes() ? ` ${time}` : ''}`;
  return rowSec >= 86_400 ? `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}` : time;
}

/** The labels of a row of ticks (uPlot's splits, seconds): each from its distance to its neighbour and the row's span. */
export function tickLabels(splits: number[]): string[] {
  const row = splits.length > 1 ? splits[splits.length - 1] - splits[0] : 0;
  return splits.map((s, i) => tick(s, i ? s - splits[i - 1] : splits[1] - s || 60, row));
}
