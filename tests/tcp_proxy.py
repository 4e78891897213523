"""A TCP proxy a test can cut: a real network fault between a server and its database."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Proxy:
    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.open = True
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        """Close every connection and refuse new ones, as a dead link would."""
        self.open = False
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def heal(self) -> None:
        """Accept connections again."""
        self.open = True

    def upstream_ports(self) -> set[int]:
        """The local ports of the connections to the target: how the target knows them."""
        with self._lock:
            ports = set()
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    if sock.getpeername()[1] == self.target[1]:
                        ports.add(sock.getsockname()[1])
            return ports

    def close(self) -> None:
        self.cut()
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.close()


@contextmanager
def proxy(target: tuple[str, int]) -> Iterator[Proxy]:
    running = Proxy(target)
    try:
        yield running
    finally:
        running.close()
