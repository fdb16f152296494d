"""The wire: JSON messages on a Unix stream socket, one per line.

``guildd`` reads and writes one compact JSON value (an object, or an array
for a batch) per line: UTF-8 terminated by a single ``\\n``
(``protocol/framing.md``).  :func:`encode` builds such a line and
:class:`LineSplitter` cuts a byte stream back into lines; both are pure.
:class:`LineTransport` holds the socket and a reader thread that hands each
decoded message to a callback.  Nothing here knows about JSON-RPC ids,
results or errors: that is :mod:`guild_client.client`.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
from typing import Any, Callable, List, Optional

__all__ = ["LineSplitter", "LineTransport", "default_socket_path", "encode"]

log = logging.getLogger(__name__)

#: Bytes asked of the socket per read.
RECV_SIZE = 65536


def default_socket_path() -> str:
    """Return the socket path the daemon listens on by default.

    In order of preference: ``$GUILD_SOCKET``;
    ``$XDG_RUNTIME_DIR/guild/guild.sock``; ``/run/guild/guild.sock`` when
    running as root; otherwise ``/run/user/<uid>/guild/guild.sock``.
    """
    explicit = os.environ.get("GUILD_SOCKET")
    if explicit:
        return explicit
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
    if runtime_dir:
        return os.path.join(runtime_dir, "guild", "guild.sock")
    uid = os.getuid()
    if uid == 0:
        return "/run/guild/guild.sock"
    return "/run/user/{}/guild/guild.sock".format(uid)


def encode(message: Any) -> bytes:
    """Return ``message`` as one line: compact UTF-8 JSON and ``\\n``.

    ``json.dumps`` escapes control characters inside strings, so the line
    never holds a raw newline; other characters are sent unescaped.
    """
    text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8") + b"\n"


class LineSplitter:
    """Cuts a byte stream into ``\\n``-terminated lines.

    Feed it what the socket returns, in any pieces; it returns the complete
    lines (without their ``\\n``) and keeps the unfinished rest.  Blank lines
    are skipped.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held back."""
        return len(self._buffer)

    def feed(self, chunk: bytes) -> List[bytes]:
        """Add ``chunk``; return the lines it completed, oldest first."""
        self._buffer += chunk
        if b"\n" not in chunk:
            return []
        *lines, rest = self._buffer.split(b"\n")
        self._buffer = bytearray(rest)
        return [bytes(line) for line in lines if line.strip()]


class LineTransport:
    """A connected Unix socket speaking one JSON message per line.

    A daemon thread reads the socket and calls ``on_message`` with every
    decoded message (a dict or a list), in the order they arrive; lines that
    are not JSON are logged and skipped.  When the stream ends, fails or is
    closed, ``on_close`` is called once, on the reader thread, with a reason.
    Sending is thread-safe: each message is written whole.
    """

    def __init__(
        self,
        path: str,
        on_message: Callable[[Any], None],
        on_close: Callable[[str], None],
        timeout: Optional[float] = None,
    ) -> None:
        """Connect to ``path``; :meth:`start` starts reading.

        Args:
            path: The socket path.
            on_message: Called on the reader thread with each message.
                Exceptions it raises are logged; reading goes on.
            on_close: Called on the reader thread once the stream is over.
            timeout: Seconds to wait for the connection; ``None`` waits.

        Raises:
            OSError: The socket could not be connected.
        """
        self.path = path
        self._on_message = on_message
        self._on_close = on_close
        self._send_lock = threading.Lock()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.settimeout(None)
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._reader = threading.Thread(
            target=self._read_loop, name="guild-client-reader", daemon=True
        )

    def start(self) -> None:
        """Start the reader thread; ``on_message`` may be called from now on."""
        self._reader.start()

    def send(self, message: Any) -> None:
        """Write ``message`` as one line (see :func:`encode`).

        Raises:
            OSError: The write failed (the connection is gone).
        """
        self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> None:
        """Write ``data`` exactly as given, whole, without interleaving.

        Raises:
            OSError: The write failed (the connection is gone).
        """
        with self._send_lock:
            self._sock.sendall(data)

    def close(self) -> None:
        """Shut the socket down and wait for the reader thread to end, if started.

        ``on_close`` has run when this returns (unless it is called from
        the reader thread itself).  Closing twice is harmless.
        """
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        if self._reader.is_alive() and self._reader is not threading.current_thread():
            self._reader.join(timeout=5.0)
        self._sock.close()

    def _read_loop(self) -> None:
        splitter = LineSplitter()
        reason = "connection closed by daemon"
        try:
            while True:
                chunk = self._sock.recv(RECV_SIZE)
                if not chunk:
                    break
                for line in splitter.feed(chunk):
                    self._handle_line(line)
        except OSError as exc:
            reason = "connection lost: {}".format(exc)
        finally:
            self._on_close(reason)

    def _handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            log.warning("ignoring unparsable message from daemon: %r", line[:200])
            return
        try:
            self._on_message(message)
        except Exception:  # Never let one bad message kill the reader.
            log.exception("error while handling message from daemon")
