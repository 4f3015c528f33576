"""Dice Arena environments; importing this package registers them with PettingZoo and Gymnasium.

``from dicearena.envs import easy_come_easy_go_v0`` gives the PettingZoo classic-style module (``env``, ``raw_env``).
Before any game module compiles, numba's cache is pointed at a directory keyed by the source
(``envs/common/numba_cache.py``), so compiled code never outlives an engine edit, and numba's thread pool is
started, so a ``torch.set_num_threads`` after this import stays set (``envs/common/batching.py``).
"""

if __name__ != "dicearena.envs":  # the folder is installed as dicearena.envs; a bare "envs" would be a second copy
    raise ImportError(f"import dicearena.envs, not {__name__} (pip install -e . maps envs/ onto dicearena.envs)")



from dicearena.envs.common.numba_cache import configure_numba_cache

configure_numba_cache()

from dicearena.envs.common.batching import start_thread_pool  # noqa: E402

start_thread_pool()  # now, not mid-run: starting it resets the OpenMP thread count torch shares (batching.py)

from dicearena.envs.games import import_games  # noqa: E402

import_games()  # each game on the contract registers its spec

from dicearena.envs.registration import register_all  # noqa: E402

register_all()  # PettingZoo and Gymnasium ids, the contract games' from their specs
