"""Ctrl-C and SIGTERM stop a training run as a KeyboardInterrupt, except in the middle of a checkpoint's write.

Why: the trainers (``train.py``, ``rllib.py``) save a checkpoint when they are stopped and resume from it later. A
KeyboardInterrupt raised inside a library's writer can come out as another error (torch's zip writer turns it into
``RuntimeError: unexpected pos``), and the run then exits 1 without its last save. So a signal that comes while a
write is ``held`` waits for the write to be whole; ``stop_if_asked`` then raises it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType

__all__ = ["StopSignals"]

STOPPING = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """``with StopSignals() as stops:`` handles both signals until the block ends, then puts back the handlers it
    found. Outside the main thread (where Python runs no signal handler) it changes nothing."""

    def __init__(self) -> None:
        self.holding = False
        self.asked = False
        self._previous: dict[int, object] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous = {signum: signal.signal(signum, self._on_signal) for signum in STOPPING}
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:  # fmt: skip
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.holding:
            self.asked = True
            return
        raise KeyboardInterrupt

    @contextmanager
    def held(self) -> Iterator[None]:
        """A stop signal inside the block is kept for ``stop_if_asked`` instead of interrupting the write."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    def stop_if_asked(self) -> None:
        """Raise the KeyboardInterrupt a signal asked for while a write was held (once)."""
        if self.asked:
            self.asked = False
            raise KeyboardInterrupt
