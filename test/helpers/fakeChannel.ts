// A fake IPC channel to the primary: records what is sent, lets the test answer or disconnect.
import type { IpcChannel } from "../../src/node/ipc/ipcRequester.js";

export function fakeChannel<Request>() {
  const sent: Request[] = [];
  const listeners: ((message: unknown) => void)[] = [];
  const disconnects: (() => void)[] = [];
  const channel: IpcChannel<Request> = {
    send: (message) => void sent.push(message),
    onMessage: (listener) => void listeners.push(listener),
    onDisconnect: (listener) => void disconnects.push(listener),
  };
  return {
    channel,
    sent,
    answer: (message: unknown) => listeners.forEach((l) => l(message)),
    disconnect: () => disconnects.forEach((l) => l()),
  };
}
