"""The ``slow`` marker: the tests that train, run RLlib, execute the notebooks, build the wheel, spawn fresh
interpreters or play thousands of games to rank agents.

``make test`` (CI) runs every test; ``make test-fast`` (``pytest -m "not slow"``) leaves these out. Measured with
``pytest --durations=0``; whole modules where every test shares the expensive work, single tests otherwise (by
function name: every parametrisation). A name that matches no module or test is an error
(``tests/test_user_papercuts.py``), so a rename cannot quietly put a slow test back into ``test-fast``.
"""

from __future__ import annotations

import pytest

SLOW_MODULES = (
    # SB3 training runs, resumes, kills and checkpoints
    "test_train_evaluate",
    "test_training_faults",
    "test_run_faults",
    "test_self_play",
    "test_self_play_resume",
    "test_advice",
    "test_pig_example",
    # learned value tables: seeded training and the shipped tables against their baselines
    "test_position_values",
    "test_learned_values",
    "test_yay_learned_values",
    # the shipped trained agents: every size they claim, and beating random head to head
    "test_shipped_agents",
    # Ray RLlib
    "test_rllib",
    "test_rllib_resume_safety",
    # the notebooks, top to bottom
    "test_notebooks",
    # builds the wheel and installs it into a fresh venv
    "test_wheel",
    # fresh interpreters: spawned vector-env workers, numba's cache across processes
    "test_vector_envs",
    "test_numba_cache",
    # 10^5+ games per batched engine
    "test_batched_stress",
    # tournaments: every rotated seating, ratings over thousands of games
    "test_tournament",
)

SLOW_TESTS = (
    "test_layers::test_every_module_imports_first_in_a_fresh_process",  # one interpreter per module
    "test_outside_games::test_an_edit_to_an_engine_outside_the_tree_reaches_its_compiled_kernels",  # recompiles
    "test_kernels::test_kernels_load_without_a_cache_directory",  # compiles every kernel without a cache
    # thousands of games to rank players or check returns
    "test_vs_opponents::test_scoring_ranks_the_players_as_the_game_says",
    "test_vs_opponents::test_yay_shaping_reaches_the_learner_and_keeps_returns_at_plus_minus_one",
    "test_easy_come_easy_go_evaluation::test_more_players_and_batch_sizes",
    "test_conformance::test_the_evaluation_loop_counts_exactly_the_scheduled_games",
    "test_easy_money_agents::test_heuristic_beats_random_players",
    "test_easy_money_agents::test_exact_greed_against_heuristic",
    "test_easy_come_easy_go_turn_task::test_maskable_ppo_learns_on_the_vec_env_with_no_glue_and_beats_random",
)


def is_slow(item: pytest.Item) -> bool:
    module = item.path.stem
    return module in SLOW_MODULES or f"{module}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by marker (-m "not slow")
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
