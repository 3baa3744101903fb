"""What a compiled trusted document's resolver is given as `info` holds its context alone
(src/graph/engine/compiled.py): every resolver of COMPILED_FIELDS, and each function of
the API that it hands `info` to, reads nothing else of it. A resolver that read more
(`info.path`, `info.selected_fields`) would fail at run time and be handed back to the stock
execution, every time."""

import inspect
import re

from graph.engine.compiled import COMPILED_FIELDS
from graph.engine.schema import tuned_schema
from graph.mutations import base, tasks
from graph.permissions import viewer_of

# `info.<attribute>`, and `info` handed to a call as an argument.
READ = re.compile(r"\binfo\.(\w+)")
HANDED = re.compile(r"(?<!def )\b(\w+)\(\s*info\s*[,)]")
# The functions `info` reaches from the moves' resolvers: whatever each reads of it is
# checked below too.
REACHED = {
    "_move": tasks._move,
    "mutate": base.mutate,
    "viewer_of": viewer_of,
}


def reads_of(function: object) -> tuple[set[str], set[str]]:
    source = inspect.getsource(function)  # type: ignore[arg-type]
    return set(READ.findall(source)), set(HANDED.findall(source))


def test_compiled_resolvers_read_only_the_context_of_info() -> None:
    mutations = tuned_schema()._schema.mutation_type
    assert mutations is not None
    seen: dict[str, set[str]] = {}
    waiting = [
        mutations.fields[name].extensions["strawberry-definition"].base_resolver.wrapped_func
        for name in sorted(COMPILED_FIELDS)
    ]
    done: set[object] = set()
    while waiting:
        function = waiting.pop()
        if function in done:
            continue
        done.add(function)
        read, handed = reads_of(function)
        seen[function.__name__] = read
        for name in handed:
            assert name in REACHED, f"{function.__name__} hands info to {name}: check what it reads"
            waiting.append(REACHED[name])
    print(seen)
    assert set(seen) >= {"start_task", "finish_task", "_move", "mutate", "viewer_of"}
    assert set().union(*seen.values()) == {"context"}
