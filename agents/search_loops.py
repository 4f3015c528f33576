"""Chance-aware Monte Carlo tree search over the game contract, written once for every game.

Why here and compiled: the search agent (``dicearena.agents.search``) must be fast enough to be worth a budget
(thousands of simulations per decision) and must need no per-game code. These functions take the engine's functions
as arguments, like the batched loops (``dicearena.envs.common.batch_loops``), and each game gets them bound in a
module generated from its engine (``search_kernels_for``), so numba caches them on disk.

The tree (one per game of a batch, nodes in flat arrays, node 0 the root):

- a **decision** node (one seat, or several at once in a simultaneous game) picks one action per acting seat by
  UCB1 on that seat's own statistics (decoupled UCT: with one acting seat, plain UCT; untried actions first, or
  valued as the node with ``FIRST_PLAY``); its children are keyed by the joint action (``key``: one entry per seat,
  -1 for a seat that does not act). Its value is the mean of what passed through it, or with ``BEST_CHILD`` (a
  one-seat decision) its most visited child's (and then a sampled chance node is worth its children's values
  weighted by their visits, so that value carries through it);
- an **enumerated chance** node (the engine's ``enumerate_outcomes`` lists the event) samples an outcome by its
  exact probability and keeps an expectimax value: the probability-weighted mean of its visited children's values;
- a **sampled chance** node (a shuffle, Yay!'s landings) draws as the faces do (``draw_outcome``); a drawn outcome
  that leads to a state already among its children joins that child;
- both chance kinds widen progressively: at most ``widening * sqrt(visits)`` children; beyond, an existing child
  is picked by its share of the probability (enumerated) or of the visits (sampled);
- a **terminal** node is worth its final rewards.

A leaf is valued by a random rollout to the end (compiled here; with ``DECISIVE`` the mover takes a move that ends
the game with a positive reward for it when one is legal) or, in waves, by any evaluator outside
(``select`` / ``backup``: an agent's rollouts, a value function). Values are every seat's final reward, scaled to
0..1 by the extremes the tree has seen, so one exploration constant fits rewards of any size. Each tree draws from
its own SplitMix64 stream: the same search whatever the thread count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dicearena.envs.common.contract import CHANCE, PLAYING, SIMULTANEOUS
from dicearena.envs.common.streams import splitmix

__all__ = ["DECISION", "ENUMERATED", "SAMPLED", "TERMINAL", "Tree", "backup", "new_buffers", "new_tree", "no_acting",
           "no_resample", "root_action", "root_tally", "rollout", "search_one", "select", "start", "tree_row", "world"]

DECISION, ENUMERATED, SAMPLED, TERMINAL = 0, 1, 2, 3
# the knobs array's slots (``SearchBudget``)
EXPLORATION, WIDENING, FIRST_PLAY, BEST_CHILD, DECISIVE, WORLDS, SEE_HIDDEN = 0, 1, 2, 3, 4, 5, 6
_MAX_ROLLOUT_STEPS = 1_000_000  # a guard only: every contract game ends


@njit(inline="always")
def _uniform(rng: np.ndarray) -> float:
    x, z = splitmix(rng[0])
    rng[0] = x
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _draw(state, rng, words, outcome, draw_outcome):
    for i in range(words.shape[0]):
        x, z = splitmix(rng[0])
        rng[0] = x
        words[i] = np.int64(z >> np.uint64(1))
    draw_outcome(state, words, outcome)


@njit(inline="always")
def _random_legal(state, seat, mask, rng, legal_mask):
    legal_mask(state, seat, mask)
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a] != 0
    pick = int(_uniform(rng) * n)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(inline="always")
def _mark_acting(state, marks, to_act, acting):
    """``marks``: 1 for every seat that decides at this decision node; the number of them."""
    who = to_act(state)
    marks[:] = 0
    if who == SIMULTANEOUS:
        return acting(state, marks)
    marks[who] = 1
    return 1


@njit(inline="always")
def _decisive(state, seat, mask, probe, probe_value, legal_mask, apply_action, status, rewards):
    """The legal action that ends the game with the highest positive reward for ``seat`` (-1: none does)."""
    legal_mask(state, seat, mask)
    best, pick = 0.0, -1
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            probe[:] = state
            apply_action(probe, seat, a)
            if status(probe) != PLAYING:
                rewards(probe, probe_value)
                if probe_value[seat] > best:
                    best, pick = probe_value[seat], a
    return pick


@njit(inline="always")
def rollout(state, rng, mask, marks, words, outcome, out, knobs, probe, probe_value, to_act, legal_mask, apply_action,
            status, rewards, draw_outcome, acting, apply_outcome):  # fmt: skip
    """Play ``state`` to its end (random legal actions, the engine's own chance); final rewards into ``out``. With
    the ``DECISIVE`` knob a sequential mover takes an action that ends the game with a positive reward for it, the
    best such, whenever one is legal (decisive moves: Teytaud & Teytaud 2010)."""
    decisive = knobs[DECISIVE] != 0.0
    for _ in range(_MAX_ROLLOUT_STEPS):
        if status(state) != PLAYING:
            break
        who = to_act(state)
        if who == CHANCE:
            _draw(state, rng, words, outcome, draw_outcome)
            apply_outcome(state, outcome)
        elif who == SIMULTANEOUS:
            acting(state, marks)
            for seat in range(marks.shape[0]):
                if marks[seat] != 0:
                    apply_action(state, seat, _random_legal(state, seat, mask, rng, legal_mask))
        elif who >= 0:
            a = _decisive(state, who, mask, probe, probe_value, legal_mask, apply_action, status, rewards) \
                if decisive else -1  # fmt: skip
            apply_action(state, who, a if a >= 0 else _random_legal(state, who, mask, rng, legal_mask))
        else:
            break
    rewards(state, out)


class Tree:
    """Field order of the tuple ``new_tree`` returns (numba takes the tuple; the names document it)."""

    (STATE, KIND, VISITS, VALUE_SUM, VALUE, FIRST, SIBLING, KEY, PROB, PROB_SUM, DEPTH, CHILDREN, META, BOUNDS,
     PATH) = range(15)  # fmt: skip


@njit(cache=True)
def new_tree(nodes: int, state_size: int, players: int) -> tuple:
    """Empty arrays for a tree of at most ``nodes`` nodes (``Tree`` names the fields; ``new_trees`` says what each
    holds)."""
    return tree_row(new_trees(1, nodes, state_size, players), 0)


@njit(inline="always")
def _add_node(tree, parent, depth):
    visits, vsum, q, first, sib, key = tree[2], tree[3], tree[4], tree[5], tree[6], tree[7]
    prob, psum = tree[8], tree[9]
    dep, nchild, meta = tree[10], tree[11], tree[12]
    n = meta[0]
    meta[0] += 1
    visits[n] = 0
    vsum[n, :] = 0.0
    q[n, :] = 0.0
    first[n] = -1
    sib[n] = -1
    key[n, :] = -1
    prob[n] = 0.0
    psum[n] = 0.0
    dep[n] = depth
    nchild[n] = 0
    if parent >= 0:
        sib[n] = first[parent]
        first[parent] = n
        nchild[parent] += 1
    return n


@njit(inline="always")
def _classify(tree, n, outcomes, probs, can_enumerate, to_act, status, enumerate_outcomes):
    state = tree[0][n]
    kind = tree[1]
    if status(state) != PLAYING:
        kind[n] = TERMINAL
    else:
        who = to_act(state)
        if who == CHANCE:
            kind[n] = ENUMERATED if can_enumerate and enumerate_outcomes(state, outcomes, probs) >= 0 else SAMPLED
        elif who >= 0 or who == SIMULTANEOUS:
            kind[n] = DECISION
        else:
            kind[n] = TERMINAL


@njit(inline="always")
def start(tree, root, outcomes, probs, can_enumerate, to_act, status, enumerate_outcomes):
    tree[12][:] = 0
    tree[13][0] = np.inf
    tree[13][1] = -np.inf
    n = _add_node(tree, -1, 0)
    tree[0][n, :] = root
    _classify(tree, n, outcomes, probs, can_enumerate, to_act, status, enumerate_outcomes)


@njit(inline="always")
def _select_joint(tree, n, joint, marks, mask, counts, values, rng, knobs, to_act, acting, legal_mask):
    """One action per acting seat at decision node ``n`` into ``joint`` (-1 for the others): the highest UCB1 on the
    seat's own statistics."""
    st, visits, q, first, sib, key = tree[0], tree[2], tree[4], tree[5], tree[6], tree[7]
    exploration, first_play = knobs[EXPLORATION], knobs[FIRST_PLAY] != 0.0
    lo, hi = tree[13][0], tree[13][1]
    scale = 1.0 / (hi - lo) if hi > lo else 0.0
    state = st[n]
    _mark_acting(state, marks, to_act, acting)
    for seat in range(marks.shape[0]):
        joint[seat] = -1
        if marks[seat] == 0:
            continue
        legal_mask(state, seat, mask)
        counts[:] = 0.0
        values[:] = 0.0
        c = first[n]
        while c >= 0:
            a = key[c, seat]
            counts[a] += visits[c]
            values[a] += visits[c] * q[c, seat]
            c = sib[c]
        total = 0.0
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                total += counts[a]
        # an untried action is valued as the node itself so far (first-play urgency), so visits go deep on the
        # promising moves instead of first trying each of many once; a random jitter breaks ties among them
        untried = (q[n, seat] - lo) * scale + exploration * math.sqrt(math.log(total + 1.0))
        log_total = math.log(max(total, 1.0))
        chosen = -1
        best = -np.inf
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                if counts[a] == 0:  # without first-play urgency, every untried action comes first
                    score = (untried if first_play else 1e9) + 1e-9 * _uniform(rng)
                else:
                    score = (values[a] / counts[a] - lo) * scale + exploration * math.sqrt(log_total / counts[a])
                if score > best:
                    best, chosen = score, a
        joint[seat] = chosen


@njit(inline="always")
def _child_with_key(tree, n, joint):
    first, sib, key = tree[5], tree[6], tree[7]
    c = first[n]
    while c >= 0:
        same = True
        for i in range(joint.shape[0]):
            if key[c, i] != joint[i]:
                same = False
                break
        if same:
            return c
        c = sib[c]
    return -1


@njit(inline="always")
def _same_state(st, a, b):
    for i in range(st.shape[1]):
        if st[a, i] != st[b, i]:
            return False
    return True


@njit(inline="always")
def select(tree, max_depth, knobs, rng, joint, marks, mask, counts, values, words, outcome,
           outcomes, probs, can_enumerate, to_act, legal_mask, apply_action, status, draw_outcome, acting,
           apply_outcome, enumerate_outcomes):  # fmt: skip
    """Walk from the root to a leaf (a new node, a terminal one, one at ``max_depth``, or any once the arrays are
    full), recording the path (``Tree.PATH``, its length in ``META[1]``); the leaf's index."""
    st, kind, visits, first, sib, key = tree[0], tree[1], tree[2], tree[5], tree[6], tree[7]
    prob, dep, nchild, meta, path = tree[8], tree[10], tree[11], tree[12], tree[14]
    capacity = st.shape[0]
    n = 0
    length = 0
    while True:
        path[length] = n
        length += 1
        if kind[n] == TERMINAL or visits[n] == 0 and n != 0 or dep[n] >= max_depth or meta[0] >= capacity:
            break
        child = -1
        if kind[n] == DECISION:
            _select_joint(tree, n, joint, marks, mask, counts, values, rng, knobs, to_act, acting, legal_mask)
            child = _child_with_key(tree, n, joint)
            if child < 0:
                child = _add_node(tree, n, dep[n] + 1)
                st[child, :] = st[n]
                state = st[child]
                for seat in range(joint.shape[0]):
                    key[child, seat] = joint[seat]
                for seat in range(joint.shape[0]):
                    if joint[seat] >= 0:
                        apply_action(state, seat, joint[seat])
        elif kind[n] == ENUMERATED and nchild[n] >= max(1.0, knobs[WIDENING] * math.sqrt(visits[n])):
            # widened enough for its visits: an outcome already tried, by its share of their probability
            u = _uniform(rng) * tree[9][n]
            c = first[n]
            while c >= 0:
                child = c
                if visits[c] > 0:
                    u -= prob[c]
                    if u < 0.0:
                        break
                c = sib[c]
        elif kind[n] == ENUMERATED:
            count = enumerate_outcomes(st[n], outcomes, probs)
            u = _uniform(rng)
            pick = count - 1
            acc = 0.0
            for i in range(count):
                acc += probs[i]
                if u < acc:
                    pick = i
                    break
            c = first[n]
            while c >= 0:
                if key[c, 0] == pick:
                    child = c
                    break
                c = sib[c]
            if child < 0:
                child = _add_node(tree, n, dep[n] + 1)
                st[child, :] = st[n]
                key[child, 0] = pick
                prob[child] = probs[pick]
                apply_outcome(st[child], outcomes[pick])
        else:  # SAMPLED
            if nchild[n] < max(1.0, knobs[WIDENING] * math.sqrt(visits[n])):
                fresh = meta[0]
                st[fresh, :] = st[n]
                _draw(st[fresh], rng, words, outcome, draw_outcome)
                apply_outcome(st[fresh], outcome)
                c = first[n]
                while c >= 0:
                    if _same_state(st, c, fresh):
                        child = c
                        break
                    c = sib[c]
                if child < 0:
                    child = _add_node(tree, n, dep[n] + 1)  # takes the index ``fresh``, its state already written
            else:
                total = 0
                c = first[n]
                while c >= 0:
                    total += visits[c]
                    c = sib[c]
                pick = int(_uniform(rng) * total)
                c = first[n]
                while c >= 0:
                    child = c
                    if pick < visits[c]:
                        break
                    pick -= visits[c]
                    c = sib[c]
        if visits[child] == 0:
            _classify(tree, child, outcomes, probs, can_enumerate, to_act, status, enumerate_outcomes)
        n = child
    meta[1] = length
    return n


@njit(inline="always")
def _best_child_value(tree, n):
    """A decision of one seat is worth its most visited child (ties: the better), not the mean of every child tried:
    the mean drags a node toward its explored bad moves, which a parent comparing moves (or an expectimax chance
    node above it) would take for the node's worth. Several seats at once keep the mean (no single best child)."""
    visits, q, first, sib, key = tree[2], tree[4], tree[5], tree[6], tree[7]
    c = first[n]
    seat = -1
    for s in range(key.shape[1]):
        if key[c, s] >= 0:
            if seat >= 0:
                return
            seat = s
    best = -1
    while c >= 0:
        if best < 0 or visits[c] > visits[best] or visits[c] == visits[best] and q[c, seat] > q[best, seat]:
            best = c
        c = sib[c]
    q[n, :] = q[best]


@njit(inline="always")
def _children_mean(tree, n):
    """A sampled chance node is worth its children's values weighted by their visits (how often each outcome was
    drawn), so a decision below it counts at its best child's value (``_best_child_value``), as an enumerated
    node's expectimax does; the mean of the leaf values that passed through would bring back the explored bad
    moves."""
    visits, q, first, sib = tree[2], tree[4], tree[5], tree[6]
    q[n, :] = 0.0
    total = 0.0  # at least the visit of the path's child (backup calls this only above one)
    c = first[n]
    while c >= 0:
        total += visits[c]
        for p in range(q.shape[1]):
            q[n, p] += visits[c] * q[c, p]
        c = sib[c]
    q[n, :] /= total


@njit(inline="always")
def backup(tree, value, knobs, before, child_before, child_after):
    """Add ``value`` (every seat's, for the leaf that ends the last path) to the path's nodes: means, except at
    enumerated chance nodes, the expectimax over their visited children (exact probabilities)."""
    kind, visits, vsum, q, prob, psum, meta, bounds, path = (tree[1], tree[2], tree[3], tree[4], tree[8], tree[9],
                                                              tree[12], tree[13], tree[14])  # fmt: skip
    for p in range(value.shape[0]):
        bounds[0] = min(bounds[0], value[p])
        bounds[1] = max(bounds[1], value[p])
    length = meta[1]
    for i in range(length - 1, -1, -1):
        n = path[i]
        before[:] = q[n]
        visits[n] += 1
        if kind[n] == ENUMERATED and i < length - 1:
            c = path[i + 1]
            if psum[n] == 0.0:  # its first outcome: forget the rollouts it had as a leaf
                vsum[n, :] = 0.0
            if visits[c] == 1:  # that outcome's first visit: its mass joins
                psum[n] += prob[c]
                for p in range(q.shape[1]):
                    vsum[n, p] += prob[c] * child_after[p]
            else:
                for p in range(q.shape[1]):
                    vsum[n, p] += prob[c] * (child_after[p] - child_before[p])
            for p in range(q.shape[1]):
                q[n, p] = vsum[n, p] / psum[n]
        else:
            for p in range(q.shape[1]):
                vsum[n, p] += value[p]
                q[n, p] = vsum[n, p] / visits[n]
            if kind[n] == DECISION and i < length - 1 and knobs[BEST_CHILD] != 0.0:
                _best_child_value(tree, n)
            elif kind[n] == SAMPLED and i < length - 1 and knobs[BEST_CHILD] != 0.0:
                _children_mean(tree, n)
        child_before[:] = before
        child_after[:] = q[n]


@njit(inline="always")
def root_tally(tree, seat, counts, values):
    """Add ``seat``'s visits and value sums per root action of ``tree`` into ``counts`` and ``values`` (summed over the
    trees of several worlds)."""
    visits, q, first, sib, key = tree[2], tree[4], tree[5], tree[6], tree[7]
    c = first[0]
    while c >= 0:
        a = key[c, seat]
        if a >= 0:
            counts[a] += visits[c]
            values[a] += visits[c] * q[c, seat]
        c = sib[c]


@njit(inline="always")
def most_visited(counts, values):
    """The most visited action (ties: the better mean)."""
    best, best_count, best_mean = -1, -1.0, -np.inf
    for a in range(counts.shape[0]):
        if counts[a] > 0:
            mean = values[a] / counts[a]
            if counts[a] > best_count or counts[a] == best_count and mean > best_mean:
                best, best_count, best_mean = a, counts[a], mean
    return best


@njit(inline="always")
def root_action(tree, seat, counts, values):
    """``seat``'s most visited action at the root (ties: the better mean)."""
    counts[:] = 0.0
    values[:] = 0.0
    root_tally(tree, seat, counts, values)
    return most_visited(counts, values)


@njit(inline="always")
def no_resample(state, key):
    """A game that hides nothing: every state is its own information set."""


@njit(inline="always")
def world(state, rng, knobs, resample):
    """The root as searched: with hidden information (``resample``: the engine's ``resample_hidden``) a state the
    player could equally be in, unless ``SEE_HIDDEN`` (the true state: an upper bound, not a fair player)."""
    if knobs[SEE_HIDDEN] == 0.0:
        x, z = splitmix(rng[0])
        rng[0] = x
        resample(state, np.int64(z >> np.uint64(1)))


@njit(inline="always")
def no_acting(state, out):
    """A sequential game's ``acting`` (never called: its ``to_act`` is never ``SIMULTANEOUS``)."""
    return 0


@njit(inline="always")
def search_one(root, seat, tree, simulations, max_depth, knobs, rng, buffers, can_enumerate, to_act,
               legal_mask, apply_action, status, rewards, draw_outcome, acting, apply_outcome,
               enumerate_outcomes, resample):  # fmt: skip
    """``simulations`` of select, random rollout and backup from ``root``, split over ``WORLDS`` trees (each on its
    own ``world`` of the root); ``seat``'s most visited action over them."""
    joint, marks, mask, counts, values, words, outcome, outcomes, probs, scratch, value, before, cb, ca, probe, pv = \
        buffers  # fmt: skip
    worlds = int(knobs[WORLDS])
    total_counts = np.zeros(counts.shape[0])
    total_values = np.zeros(counts.shape[0])
    for w in range(worlds):
        scratch[:] = root
        world(scratch, rng, knobs, resample)
        start(tree, scratch, outcomes, probs, can_enumerate, to_act, status, enumerate_outcomes)
        for _ in range(simulations // worlds + (w < simulations % worlds)):
            leaf = select(tree, max_depth, knobs, rng, joint, marks, mask, counts, values, words, outcome,
                          outcomes, probs, can_enumerate, to_act, legal_mask, apply_action, status, draw_outcome,
                          acting, apply_outcome, enumerate_outcomes)  # fmt: skip
            scratch[:] = tree[0][leaf]
            if tree[1][leaf] == TERMINAL:
                rewards(scratch, value)
            else:
                rollout(scratch, rng, mask, marks, words, outcome, value, knobs, probe, pv, to_act, legal_mask,
                        apply_action, status, rewards, draw_outcome, acting, apply_outcome)  # fmt: skip
            backup(tree, value, knobs, before, cb, ca)
        root_tally(tree, seat, total_counts, total_values)
    return most_visited(total_counts, total_values)


@njit(cache=True)
def new_buffers(players, actions, words, outcome_size, max_outcomes, state_size):
    """Scratch for one tree's search (``search_one``'s ``buffers``)."""
    return (
        np.zeros(players, dtype=np.int32),  # joint action
        np.zeros(players, dtype=np.int8),  # acting seats
        np.zeros(actions, dtype=np.int8),  # legal mask
        np.zeros(actions, dtype=np.float64),  # visits per action
        np.zeros(actions, dtype=np.float64),  # value sums per action
        np.zeros(max(1, words), dtype=np.int64),
        np.zeros(max(1, outcome_size), dtype=np.int32),
        np.zeros((max(1, max_outcomes), max(1, outcome_size)), dtype=np.int32),
        np.zeros(max(1, max_outcomes), dtype=np.float64),
        np.zeros(state_size, dtype=np.int32),  # the rollout's state
        np.zeros(players, dtype=np.float64),  # a leaf's value
        np.zeros(players, dtype=np.float64),
        np.zeros(players, dtype=np.float64),
        np.zeros(players, dtype=np.float64),
        np.zeros(state_size, dtype=np.int32),  # a decisive rollout's probe state
        np.zeros(players, dtype=np.float64),  # and its rewards
    )


@njit(cache=True)
def new_trees(trees: int, nodes: int, state_size: int, players: int) -> tuple:
    """``trees`` trees' arrays at once (each field gains a leading axis; ``tree_row`` takes one tree's views): the
    trees a search in waves keeps between its calls."""
    return (
        np.zeros((trees, nodes, state_size), dtype=np.int32),  # each node's engine state
        np.zeros((trees, nodes), dtype=np.int8),  # DECISION, ENUMERATED, SAMPLED, TERMINAL
        np.zeros((trees, nodes), dtype=np.int64),  # visits
        np.zeros((trees, nodes, players), dtype=np.float64),  # sum of backed-up values (expectimax: weighted)
        np.zeros((trees, nodes, players), dtype=np.float64),  # the value estimate, every seat's
        np.zeros((trees, nodes), dtype=np.int32),  # first child
        np.zeros((trees, nodes), dtype=np.int32),  # next sibling
        np.zeros((trees, nodes, players), dtype=np.int32),  # key: joint action, or [outcome id] (enumerated)
        np.zeros((trees, nodes), dtype=np.float64),  # the outcome's probability (children of enumerated nodes)
        np.zeros((trees, nodes), dtype=np.float64),  # probability mass of the visited children (enumerated nodes)
        np.zeros((trees, nodes), dtype=np.int32),  # depth (decisions and chance events from the root)
        np.zeros((trees, nodes), dtype=np.int32),  # number of children
        np.zeros((trees, 2), dtype=np.int64),  # [nodes used, length of the last path]
        np.zeros((trees, 2), dtype=np.float64),  # [lowest, highest] value seen
        np.zeros((trees, nodes + 1), dtype=np.int32),  # the last path, root first
    )


@njit(inline="always")
def tree_row(trees, b):
    """Tree ``b`` of ``new_trees``' arrays, as the tuple ``new_tree`` gives."""
    return (trees[0][b], trees[1][b], trees[2][b], trees[3][b], trees[4][b], trees[5][b], trees[6][b], trees[7][b],
            trees[8][b], trees[9][b], trees[10][b], trees[11][b], trees[12][b], trees[13][b], trees[14][b])  # fmt: skip


@njit(inline="always")
def rollout_advance(states, done, rngs, obs, masks, seats, words, outcome, marks, to_act, status, draw_outcome,
                    apply_outcome, observe, legal_mask, acting):  # fmt: skip
    """Every unfinished rollout to its next decision (chance played as the faces play it), observed for the policy:
    ``seats[b]`` the seat to move (sequential) and its view in ``obs[b]`` / ``masks[b]``; at a simultaneous node
    ``obs[b, s]`` / ``masks[b, s]`` for every seat (a mask all zero for a seat that does not act). Ended ones get
    ``done[b] = 1``."""
    for b in range(states.shape[0]):
        if done[b]:
            continue
        state = states[b]
        rng = rngs[b:b + 1]
        while True:
            if status(state) != PLAYING:
                done[b] = 1
                break
            who = to_act(state)
            if who == CHANCE:
                _draw(state, rng, words, outcome, draw_outcome)
                apply_outcome(state, outcome)
                continue
            if who == SIMULTANEOUS:
                acting(state, marks)
                seats[b] = SIMULTANEOUS
                for seat in range(marks.shape[0]):
                    masks[b, seat] = 0
                    if marks[seat] != 0:
                        observe(state, seat, obs[b, seat])
                        legal_mask(state, seat, masks[b, seat])
            elif who >= 0:
                seats[b] = who
                observe(state, who, obs[b, 0])
                legal_mask(state, who, masks[b, 0])
            else:
                done[b] = 1
            break


@njit(inline="always")
def rollout_apply(states, done, seats, actions, apply_action):
    """The policy's ``actions[b, s]`` (sequential: ``actions[b, 0]`` for ``seats[b]``) played in every unfinished
    rollout."""
    for b in range(states.shape[0]):
        if done[b]:
            continue
        if seats[b] >= 0:
            apply_action(states[b], seats[b], actions[b, 0])
        else:
            for seat in range(actions.shape[1]):
                if actions[b, seat] >= 0:
                    apply_action(states[b], seat, actions[b, seat])
