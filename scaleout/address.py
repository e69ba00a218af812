"""A Dask scheduler's address, checked without Dask: its form, and whether anything answers there.

``--scheduler`` is checked before the output folder is made and before ``distributed`` is imported
(a typo is one line, not a traceback), and a connection refused or unanswered fails in about
:data:`PROBE_TIMEOUT` seconds, not after ``distributed.Client``'s 30 s of retries.
"""

import re
import socket

from ..core.errors import ParameterError, short

__all__ = ["parse_scheduler", "probe_scheduler", "PROBE_TIMEOUT", "SCHEMES"]

#: Schemes a scheduler address may have (what ``dask scheduler`` listens on over the network).
SCHEMES = ("tcp", "tls")
#: Seconds a plain TCP connect to the scheduler may take before the run gives up.
PROBE_TIMEOUT = 2.0

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


def probe_scheduler(address, *, timeout=PROBE_TIMEOUT):
    """Connect to ``address``'s host and port once (a plain TCP connect, closed at once); a
    :class:`ParameterError` naming ``--scheduler`` and the address when it is refused, the host
    is unknown or nothing answers within ``timeout`` seconds."""
    _scheme, host, port = parse_scheduler(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except TimeoutError:
        reason = f"no answer within {timeout:g} s"
    except socket.gaierror as err:
        reason = f"unknown host {host!r} ({err.strerror or err})"
    except OSError as err:
        reason = err.strerror or str(err)
    else:
        return
    raise ParameterError(f"--scheduler {address.strip()!r}: no Dask scheduler answered ({reason}); is it running?")
