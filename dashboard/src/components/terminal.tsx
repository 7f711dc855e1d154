// A terminal into a deployment's running container (docs/exec.md): xterm.js over the exec
// WebSocket, the token as the `bearer.<token>` subprotocol (a browser cannot set headers).
// Keystrokes go as binary frames, the size as {type:'resize'}; the container's output comes back
// as binary frames, then {type:'exit'} and the close. Nothing typed or printed is kept.
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { currentToken } from '../api';

const COLS = 100;
const ROWS = 24;

export function ContainerTerminal({ serviceId, deployment, onClose }: { serviceId: string; deployment: any; onClose(): void }) {
  const host = useRef<HTMLDivElement>(null);
  const [state, setState] = useState('connecting…');
  useEffect(() => {
    const term = new Terminal({ cols: COLS, rows: ROWS, convertEol: false, fontSize: 13, screenReaderMode: true });
    term.open(host.current!);
    const url = new URL(`/api/services/${serviceId}/deployments/${deployment.id}/exec/ws`, location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('cols', String(COLS));
    url.searchParams.set('rows', String(ROWS));
    const ws = new WebSocket(url, ['stevedore.exec', `bearer.${currentToken() ?? ''}`]);
    ws.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    ws.onopen = () => { setState('connected'); term.focus(); };
    ws.onmessage = (e) => {
      if (typeof e.data === 'string') {
        const m = JSON.parse(e.data);
        if (m.type === 'exit') setState(`ended (${m.reason}${m.exitCode === null ? '' : `, exit code ${m.exitCode}`})`);
        return;
      }
      term.write(new Uint8Array(e.data as ArrayBuffer));
    };
    ws.onclose = (e) => setState((s) => (s.startsWith('ended') ? s : e.code === 1006 && s === 'connecting…' ? 'refused' : 'closed'));
    const typed = term.onData((d) => { if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(d)); });
    return () => { typed.dispose(); ws.close(); term.dispose(); };
  }, [serviceId, deployment.id]);
  return (
    <div class="terminal" role="group" aria-label={`Terminal in ${deployment.containerName}`}>
      <p class="reason" role="status">Terminal in <code>{deployment.containerName}</code>: {state}. <button type="button" class="link" onClick={onClose}>Close</button></p>
      <div ref={host} data-testid="terminal" />
    </div>
  );
}
