"""Ctrl-C in a headless run: one line ``worldseed: cancelled``, status 130, no traceback, and the
output folder as it was (an earlier run's files whole, no staging left)."""

import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN = os.path.join(ROOT, "worldseed_run.py")

#: A slow run: 1025^2 heights eroded by a million droplets (tens of seconds when not cancelled).
SLOW = """
[world]
name = "Slow"
seed = 3
[terrain]
resolution = 1025
size = 1024.0
height = 120.0
[terrain.erosion]
enabled = true
droplets_per_km2 = 1000000
[export]
fbx = true
"""


def test_ctrl_c_during_erosion_ends_with_one_line_and_status_130(tmp_path):
    recipe = tmp_path / "slow.toml"
    recipe.write_text(SLOW)
    out = tmp_path / "out"
    out.mkdir()
    earlier = out / "world.fbx"
    earlier.write_bytes(b"an earlier run's FBX")
    proc = subprocess.Popen(
        [sys.executable, RUN, "--recipe", str(recipe), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a run started in the background by a script inherits SIGINT ignored: Ctrl-C as from a terminal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = []
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # wait until the erosion is under way (progress on stderr)
            line = proc.stderr.readline()
            if not line:
                break
            seen.append(line)
            if "erosion" in line:
                break
        assert any("erosion" in line for line in seen), "".join(seen)
        time.sleep(0.5)
        assert proc.poll() is None, "the run ended before it could be cancelled"
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    stderr = "".join(seen) + stderr
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert stderr.rstrip("\n").splitlines()[-1] == "worldseed: cancelled", stderr
    assert stderr.count("worldseed: cancelled") == 1
    assert "wrote" not in stdout
    assert earlier.read_bytes() == b"an earlier run's FBX"
    assert sorted(os.listdir(out)) == ["world.fbx"]  # no staging folder, no temporaries left
