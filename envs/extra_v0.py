"""Extra!, PettingZoo classic style: ``from dicearena.envs import extra_v0``; ``env``/``raw_env`` (AEC),
``parallel_env``.

AEC: the players still playing decide on each throw one after another, in seat order; the engine keeps the round
simultaneous (a choice is only recorded until every player has chosen). A player who checks a last EXTRA box is
terminated at once but stays in ``agents`` until the game ends, so that a ``"win"`` reward, known only when
everyone has finished, reaches them. Parallel: every player still playing decides at once; a finisher leaves
``agents`` in that step.

Chance: by default the contract's seeded chance (``dicearena.envs.common.chance.SeededChance``), the stream the batched
engine draws, so with the same seed a 1-game batch plays the same game. ``dice`` may be any source with
``roll(k)`` (``dicearena.envs.common.dice``), e.g. a rulebook example's exact dice: one ``roll(5)`` per throw.

``describe_action(config, state, action)`` words an action id, with the signature every game's spec shares (with an
engine state, e.g. ``env.state()``, it names what only the state knows, such as the dice thrown).
"""

from dicearena.envs.common.classic import classic_envs
from dicearena.envs.extra.game import EXTRA, describe_action

__all__ = ["describe_action", "env", "parallel_env", "raw_env"]

env, raw_env, parallel_env = classic_envs(EXTRA, __name__)
