"""``--scheduler ADDRESS``: a malformed address is one ParameterError naming the flag (no Dask
traceback), and an address where nothing listens fails in about a second (not after the 30 s of
``distributed.Client``'s retries)."""

import socket
import time

import pytest

from worldseed.core.errors import ParameterError
from worldseed.scaleout import address


def closed_port():
    """A local port nothing listens on (bound once, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("tcp://10.0.0.5:8786", ("tcp", "10.0.0.5", 8786)),
        ("  node7:8786 ", ("tcp", "node7", 8786)),
        ("tls://sched.example.org:8786", ("tls", "sched.example.org", 8786)),
        ("tcp://[::1]:8786", ("tcp", "::1", 8786)),
    ],
)
def test_good_addresses_parse(text, parsed):
    assert address.parse_scheduler(text) == parsed


@pytest.mark.parametrize(
    "text", ["garbage", "", "  ", "tcp://host", "tcp://host:0", "tcp://h:99999", "udp://h:1", "h:1:2"]
)
def test_bad_addresses_are_one_error_naming_the_flag(text):
    with pytest.raises(ParameterError, match=r"^--scheduler must be an address such as tcp://host:8786"):
        address.parse_scheduler(text)


def test_dask_executor_refuses_a_bad_address_before_starting_anything():
    from worldseed.scaleout.dask_executor import DaskExecutor

    with pytest.raises(ParameterError, match="--scheduler must be an address"):
        DaskExecutor(scheduler="garbage")


def test_nothing_listening_fails_in_about_a_second():
    port = closed_port()
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match=rf"--scheduler 'tcp://127.0.0.1:{port}': no Dask scheduler answered"):
        address.probe_scheduler(f"tcp://127.0.0.1:{port}")
    assert time.perf_counter() - t0 < 3.0


def test_the_executor_fails_fast_too():
    from worldseed.scaleout.dask_executor import DaskExecutor

    port = closed_port()
    ex = DaskExecutor(scheduler=f"tcp://127.0.0.1:{port}")
    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match="no Dask scheduler answered"):
        ex.start()
    assert time.perf_counter() - t0 < 3.0 and ex.client is None


def test_a_listening_socket_passes_the_probe():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        address.probe_scheduler(f"127.0.0.1:{server.getsockname()[1]}")
