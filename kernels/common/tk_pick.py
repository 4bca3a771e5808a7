"""The runtime picker: which of several implementations of one kernel runs for a shape
(mm_epi's auto: tma-store, tma, tma-persistent or ptr). Every choice is consulted and
recorded through picks (ROOFTOOL_PICKS), so every pass of a run runs the same code, and
noted for the cell's JSON ("code" -> "picks")."""
from __future__ import annotations

import torch
from . import picks

_PICKED = {}  # key -> (choice, picks key)


def pick(key, run, impls, reps=5):
    """Choose the fastest of several implementations for key: each is run once (it
    autotunes), then timed over reps launches with CUDA events. Cached per process; an
    earlier pass's choice (ROOFTOOL_PICKS) is reused without timing."""
    hit = _PICKED.get(key)
    if hit is not None:
        picks.note(hit[1], hit[0])
        return hit[0]
    skey = repr(key)

    def fastest():
        outer = picks.snapshot()  # the trials' autotune picks are not this cell's picks
        best, best_ms = impls[0], float("inf")
        for im in impls:
            run(im)
            torch.cuda.synchronize()
            st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            st.record()
            for _ in range(reps):
                run(im)
            en.record()
            torch.cuda.synchronize()
            ms = st.elapsed_time(en) / reps
            if ms < best_ms:
                best, best_ms = im, ms
        picks.restore(outer)
        return best

    best = picks.choose(skey, impls, fastest)  # an earlier pass of this run may have chosen already
    _PICKED[key] = (best, skey)
    return best
