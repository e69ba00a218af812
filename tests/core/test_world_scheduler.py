"""``--scheduler ADDRESS``: a malformed address is one ParameterError naming the flag (no Dask
traceback), and an address where nothing listens fails in about a second (not after the 30 s of
``distributed.Client``'s retries); so does one where something else listens: a service that speaks
first (an SSH banner: distributed tried to allocate 2.8 EiB) or one that says nothing (59 s)."""

import contextlib
import socket
import struct
import threading
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


@contextlib.contextmanager
def server(answer, hold=True):
    """A local TCP server thread that accepts one connection, sends ``answer`` (bytes; None: nothing)
    and holds the connection open for a few seconds (or closes it at once); yields its address."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    done = threading.Event()

    def serve():
        srv.settimeout(10)
        try:
            conn, _ = srv.accept()
        except OSError:
            return
        with conn:
            if answer is not None:
                conn.sendall(answer)
            if hold:
                done.wait(5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        done.set()
        thread.join()
        srv.close()


def dask_handshake(payload=b"\x83\xa8compression\xc0\xa6python\x93\x03\x0b\x07\xafpickle-protocol\x05"):
    """A message in distributed's TCP framing: total length, frame count, frame lengths, frames."""
    body = struct.pack("QQ", 1, len(payload)) + payload
    return struct.pack("Q", len(body)) + body


SSH = b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n"


@pytest.mark.parametrize(
    ("answer", "hold", "words"),
    [
        (SSH, True, "not a Dask scheduler (it speaks another protocol: it began with 'SSH-2.0-')"),
        (None, True, "not a Dask scheduler (something listens there but sent no Dask handshake within 2 s)"),
        (b"HTTP/1.1 400 Bad Request\r\n\r\n", False, "(it speaks another protocol: it began with 'HTTP/1.1')"),
        (dask_handshake()[:20], False, "(it closed the connection in the middle of a handshake)"),
        (dask_handshake()[:20], True, "sent no Dask handshake within 2 s"),
        (None, False, "(it closed the connection without a handshake)"),
        (
            struct.pack("QQ", 16, 10**6) + b"x" * 8,
            True,
            "(it speaks another protocol: it sent 8 byte(s) of something else)",
        ),
    ],
)
def test_a_service_that_is_no_scheduler_is_one_line_in_about_two_seconds(answer, hold, words):
    with server(answer, hold) as where:
        t0 = time.perf_counter()
        with pytest.raises(ParameterError) as err:
            address.probe_scheduler(where)
        took = time.perf_counter() - t0
    text = str(err.value)
    assert text.startswith(f"--scheduler {where!r}: not a Dask scheduler (") and words in text, text
    assert text.endswith(": is this the scheduler's address and port?") and took < 3.0


def test_the_executor_refuses_them_before_distributed_reads_a_byte():
    # distributed read 'SSH-2.0-' as a message length and tried to allocate 2.8 EiB (a traceback)
    from worldseed.scaleout.dask_executor import DaskExecutor

    for answer in (SSH, None):
        with server(answer) as where:
            ex = DaskExecutor(scheduler=where)
            t0 = time.perf_counter()
            with pytest.raises(ParameterError, match="not a Dask scheduler"):
                ex.start()
            assert time.perf_counter() - t0 < 3.0 and ex.client is None


def test_a_dask_handshake_passes_the_probe():
    with server(dask_handshake()) as where:
        address.probe_scheduler(where)
