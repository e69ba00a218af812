"""A Dask scheduler's address, checked without Dask: its form, and whether anything answers there.

``--scheduler`` is checked before the output folder is made and before ``distributed`` is imported
(a typo is one line, not a traceback), and a connection refused or unanswered fails in about
:data:`PROBE_TIMEOUT` seconds, not after ``distributed.Client``'s 30 s of retries.

A Dask scheduler speaks first: on every connection it sends its handshake, one message in
distributed's TCP framing (an 8-byte length, then that many bytes: a frame count and the frames'
lengths, 8 bytes each, then msgpack frames; a few hundred bytes in all).  The probe reads that
message before ``distributed`` is given the address, so a service that speaks first in another
tongue (an SSH server's banner ``SSH-2.0-...``, read as a length, made ``distributed`` try to
allocate 2.8 EiB) or a listener that says nothing (``distributed`` waited 59 s) is one line in
about :data:`HANDSHAKE_TIMEOUT` seconds.  A ``tls://`` scheduler speaks only after a TLS handshake
this probe cannot make without the cluster's certificates: there, only the TCP connect is tried.
"""

import re
import socket
import struct
import time

from ..core.errors import ParameterError, short

__all__ = ["parse_scheduler", "probe_scheduler", "PROBE_TIMEOUT", "HANDSHAKE_TIMEOUT", "MAX_HANDSHAKE_BYTES", "SCHEMES"]

#: Schemes a scheduler address may have (what ``dask scheduler`` listens on over the network).
SCHEMES = ("tcp", "tls")
#: Seconds a plain TCP connect to the scheduler may take before the run gives up.
PROBE_TIMEOUT = 2.0
#: Seconds the scheduler's handshake may take to arrive once connected.
HANDSHAKE_TIMEOUT = 2.0
#: Most bytes a handshake may announce (a scheduler's is a few hundred: frame lengths and msgpack).
MAX_HANDSHAKE_BYTES = 1 << 20
#: Most frames a handshake may hold (distributed sends one or two).
_MAX_FRAMES = 64

_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[^:/\s\[\]]+):(?P<port>\d+)/?$"
)


def parse_scheduler(address):
    """``(scheme, host, port)`` of a scheduler address such as ``tcp://10.0.0.5:8786`` (``host:port``
    alone means tcp), or a :class:`ParameterError` naming ``--scheduler``.

    >>> parse_scheduler("tcp://10.0.0.5:8786"), parse_scheduler("node7:8786")
    (('tcp', '10.0.0.5', 8786), ('tcp', 'node7', 8786))
    >>> try:
    ...     parse_scheduler("garbage")
    ... except ValueError as err:
    ...     print(str(err)[:48])
    --scheduler must be an address such as tcp://hos
    """
    text = address.strip() if isinstance(address, str) else None
    match = _ADDRESS.match(text or "")
    scheme = (match.group("scheme") or "tcp").lower() if match else None
    port = int(match.group("port")) if match else 0
    if not match or scheme not in SCHEMES or not 1 <= port <= 65535:
        raise ParameterError(
            "--scheduler must be an address such as tcp://host:8786 (tcp:// or tls://, a host and a port "
            f"in [1, 65535]), got {short(address)}"
        )
    return scheme, match.group("host").strip("[]"), port


def probe_scheduler(address, *, timeout=PROBE_TIMEOUT, handshake_timeout=HANDSHAKE_TIMEOUT):
    """Connect to ``address``'s host and port and read the scheduler's handshake (``tcp://``; a
    ``tls://`` address: the connect only), then close; a :class:`ParameterError` naming
    ``--scheduler`` and the address when the connection is refused, the host is unknown, nothing
    answers within ``timeout`` seconds, or what answers sends no Dask handshake within
    ``handshake_timeout`` seconds (silent, or speaking another protocol)."""
    scheme, host, port = parse_scheduler(address)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            if scheme != "tcp":
                return
            fault = _handshake_fault(sock, handshake_timeout)
    except TimeoutError:
        reason = f"no answer within {timeout:g} s"
    except socket.gaierror as err:
        reason = f"unknown host {host!r} ({err.strerror or err})"
    except OSError as err:
        reason = err.strerror or str(err)
    else:
        if fault is None:
            return
        raise ParameterError(f"--scheduler {address.strip()!r}: {fault}: is this the scheduler's address and port?")
    raise ParameterError(f"--scheduler {address.strip()!r}: no Dask scheduler answered ({reason}); is it running?")


def _read(sock, size, deadline):
    """Exactly ``size`` bytes from ``sock`` by ``deadline`` (``time.monotonic``): fewer when the peer
    closes first; ``TimeoutError`` when the time runs out."""
    data = b""
    while len(data) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(min(size - len(data), 65536))
        if not chunk:
            break
        data += chunk
    return data


def _shown_bytes(data):
    """The first bytes a service sent, for a message: printable ASCII as text, else their count."""
    text = data[:16]
    if text and all(32 <= b < 127 for b in text):
        return f"it began with {text.decode('ascii')!r}"
    return f"it sent {len(data)} byte(s) of something else"


def _handshake_fault(sock, timeout):
    """None when ``sock`` receives a message framed as distributed's handshake within ``timeout``
    seconds, else why not (for the error message)."""
    deadline = time.monotonic() + timeout
    try:
        head = _read(sock, 8, deadline)
        if len(head) < 8:
            return "not a Dask scheduler (it closed the connection without a handshake)"
        (size,) = struct.unpack("Q", head)  # distributed's own framing: native order
        if not 16 <= size <= MAX_HANDSHAKE_BYTES:
            return f"not a Dask scheduler (it speaks another protocol: {_shown_bytes(head)})"
        body = _read(sock, size, deadline)
    except TimeoutError:
        return f"not a Dask scheduler (something listens there but sent no Dask handshake within {timeout:g} s)"
    if len(body) < size:
        return "not a Dask scheduler (it closed the connection in the middle of a handshake)"
    (frames,) = struct.unpack_from("Q", body)
    if not 1 <= frames <= _MAX_FRAMES or 8 + 8 * frames > size:
        return f"not a Dask scheduler (it speaks another protocol: {_shown_bytes(head)})"
    return None
