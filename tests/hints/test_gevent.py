"""Under gevent (copas serve's workers), waiting for a thinker yields: other greenlets run meanwhile."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("gevent")

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    from gevent import monkey; monkey.patch_all()
    import gevent
    from api.service.bots_worker import ThinkerPool
    from tests.hints.test_bots_worker import _hint_args

    pool = ThinkerPool(size=1)
    view, seed, _, _ = _hint_args()
    pool.call("hint", view, seed, None, 200)  # the child is up
    ticks, done = [], []

    def ticker():
        while not done:
            ticks.append(1)
            gevent.sleep(0)

    def think():
        pool.call("hint", view, seed, None, 40_000)  # a long search
        done.append(len(ticks))

    gevent.joinall([gevent.spawn(think), gevent.spawn(ticker)])
    pool.close()
    print(done[0])
    """
)


def test_a_greenlet_waiting_for_a_search_lets_the_others_run() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) > 10  # the ticker kept running while the search went on in its process
