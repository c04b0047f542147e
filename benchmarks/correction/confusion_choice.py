"""How the confusion models' thresholds and changes are chosen on changes read by hand (see
``benchmarks/correction/confusions.py``'s docstring): a sweep of thresholds, the changes right at
least nine times in ten in every development text, the threshold whose changes make the most right
ones; and the changes too rare for that, each chosen on its own."""

from __future__ import annotations

from typing import Any, Container, Iterable


def choose(model: Any, changes: list[dict[str, Any]], labels: dict[str, bool],
           excluded: Container[str] = (), by_direction: bool = False) -> dict[str, Any]:
    """The threshold and the decided sets (see ``confusions.py``'s docstring), none of ``excluded``
    (English: ``FAILED_ON_FRESH``, sets or changes); sets ``model`` with them. ``by_direction``: each
    change between two members (``its->it's``, ``it's->its``) is chosen on its own, as a set is."""
    found, directions, chosen = choose_changes(changes, labels, excluded, by_direction)
    model.threshold = found["chosen"]["threshold"]
    if by_direction:
        model.directions = directions
    model.decides = tuple("/".join(members) in chosen for members in model.sets)
    return found


def choose_own(model: Any, changes: list[dict[str, Any]], labels: dict[str, bool],
               candidates: Iterable[str]) -> dict[str, Any]:
    """Each change between two members among ``candidates`` (``you're->your``: too rare in the
    development tweets to be chosen with the others; ``el->él``: wrong too often at the model's
    threshold) chosen on its own: :func:`sweep_choice` over its ``changes`` in every development text
    (each change's ``text``), by ``labels``. Sets ``model`` with those decided and their thresholds
    (a model that names the changes it makes names these too)."""
    from charwise.speller.confusions import direction

    found = {}
    for change in sorted(set(candidates) - set(model.directions)):
        rows = [{**c, "set": change} for c in changes if c["direction"] == change]
        found[change] = sweep_choice(rows, labels)["chosen"]
        if found[change]["decided"]:
            model.own_thresholds[change] = found[change]["threshold"]
    if model.directions:
        model.directions = frozenset(model.directions | set(model.own_thresholds))
    model.decides = tuple(d or any(direction(a, b) in model.own_thresholds for a in m for b in m if a != b)
                          for m, d in zip(model.sets, model.decides))
    return found


def choose_changes(changes: list[dict[str, Any]], labels: dict[str, bool], excluded: Container[str] = (),
                   by_direction: bool = True) -> tuple[dict[str, Any], frozenset[str], set[str]]:
    """:func:`sweep_choice` over ``changes`` less ``excluded`` (sets or changes), each change between
    two members on its own (``by_direction``) or each set: the sweep, the changes decided (none when
    by set) and the sets they belong to."""
    kept = [c for c in changes if c["set"] not in excluded and c.get("direction") not in excluded]
    found = sweep_choice([{**c, "set": c["direction"]} for c in kept] if by_direction else kept, labels)
    chosen = found["chosen"]["decided"]
    if not by_direction:
        return found, frozenset(), set(chosen)
    directions = frozenset(chosen)
    return found, directions, {c["set"] for c in kept if c["direction"] in directions}


#: the thresholds every choice on changes read by hand sweeps
THRESHOLDS = tuple(round(0.5 + 0.05 * k, 2) for k in range(10)) + (0.99,)


def right_nine_in_ten(row: dict[str, int]) -> bool:
    """Whether the changes of ``row`` (right, wrong, unlabelled) are all read and right at least nine
    times in ten."""
    return row["unlabelled"] == 0 and row["right"] >= 0.9 * (row["right"] + row["wrong"])


def sweep_choice(changes: list[dict[str, Any]], labels: dict[str, bool]) -> dict[str, Any]:
    """At each threshold of a sweep, the sets whose labelled changes (``changes``: probability, set,
    change, and the development ``text`` they were made in when there are several) are right at
    least 90 % of the time in every text, none unlabelled; the threshold whose sets make the most
    right changes is chosen."""
    sweep = []
    for threshold in THRESHOLDS:
        per_set: dict[str, dict[str, int]] = {}
        per_text: dict[tuple[str, str], dict[str, int]] = {}
        for change in changes:
            if change["probability"] >= threshold:
                label = labels.get(change["change"])
                outcome = "unlabelled" if label is None else "right" if label else "wrong"
                for row in (per_set.setdefault(change["set"], {"right": 0, "wrong": 0, "unlabelled": 0}),
                            per_text.setdefault((change["set"], change.get("text", "")),
                                                {"right": 0, "wrong": 0, "unlabelled": 0})):
                    row[outcome] += 1
        decided = {name: row for name, row in per_set.items()
                   if all(right_nine_in_ten(r) for (s, _), r in per_text.items() if s == name)}
        sweep.append({"threshold": threshold, "per_set": per_set, "decided": sorted(decided),
                      "right": sum(r["right"] for r in decided.values()),
                      "wrong": sum(r["wrong"] for r in decided.values())})
    best = max(sweep, key=lambda row: (row["right"], -row["wrong"], row["threshold"]))
    return {"sweep": sweep, "chosen": {k: best[k] for k in ("threshold", "decided", "right", "wrong")}}
