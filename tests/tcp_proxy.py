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
        # While holding, what the server sends is kept, then delivered in one piece.
        self._holding = False
        self._held = bytearray()
        self._held_for: socket.socket | None = None
        self.server_closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self) -> None:
        """Keep what the server sends (and its end of file) from the client until release()."""
        with self._lock:
            self._holding = True
            self.server_closed.clear()

    def held(self) -> bytes:
        with self._lock:
            return bytes(self._held)

    def release(self) -> None:
        """Deliver everything held in one send; the client's socket stays open."""
        with self._lock:
            self._holding = False
            data, self._held = bytes(self._held), bytearray()
            client = self._held_for
        if client is not None and data:
            with contextlib.suppress(OSError):  # the client may have given up meanwhile
                client.sendall(data)

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
            for source, sink, held in ((client, upstream, False), (upstream, client, True)):
                threading.Thread(target=self._pump, args=(source, sink, held), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, may_hold: bool) -> None:
        try:
            while data := source.recv(65536):
                with self._lock:
                    if may_hold and self._holding:
                        self._held += data
                        self._held_for = sink
                        continue
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                keep_client = may_hold and self._holding
            if keep_client:
                self.server_closed.set()
                sockets = [source]
            else:
                sockets = [source, sink]
            for sock in sockets:
                # Shut down before closing: the pump of the other direction may be blocked
                # in recv() on this socket, and a plain close() would then leave the
                # connection open and silent instead of ended (a hang, not a cut).
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()


@contextmanager
def proxy(target: tuple[str, int]) -> Iterator[Proxy]:
    running = Proxy(target)
    try:
        yield running
    finally:
        running.close()
