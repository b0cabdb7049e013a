"""Opening a large index does less and changes nothing: vectors mapped from their files (read-only), one
pass per matrix for the finite check and the norm check, and those checks as strict as before."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from graphrag_ui.base.errors import IndexFormatError
from graphrag_ui.index import cache, store, validate
from graphrag_ui.index.model import Entity, Relation, RelationsByEntity, entity_graph
from graphrag_ui.services.query import run_query

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample" / "en" / "index"
BIG = float(np.finfo(np.float32).max)


def _refusal(matrix: np.ndarray, squared: np.ndarray | None) -> str | None:
    try:
        validate.check_finite(matrix, "here", squared=squared)
    except IndexFormatError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(
    "poison",
    [None, np.nan, np.inf, -np.inf, BIG, -BIG, 1e-45],
    ids=["clean", "nan", "inf", "-inf", "float32-max", "-float32-max", "subnormal"],
)
def test_the_one_pass_finite_check_refuses_exactly_what_the_element_check_refuses(poison):
    """A float32's square never overflows a float64: a row's squared norm is finite exactly when the row is."""
    matrix = np.ones((7, 1024), dtype=np.float32)
    if poison is not None:
        matrix[[2, 5], 3] = poison
        matrix[5, :] = poison  # a whole row of the largest finite values: 1024 × 1.2e77 is still finite
    squared = validate.squared_norms(matrix)
    assert _refusal(matrix, squared) == _refusal(matrix, None)
    assert (_refusal(matrix, None) is None) == (poison is None or np.isfinite(poison))


def test_vectors_are_mapped_read_only_and_equal_to_the_files():
    index = store.load(SAMPLE)
    for kind, table in index.vectors.items():
        on_disk = np.load(SAMPLE / "vectors" / f"{kind}.npy")
        assert table.matrix.dtype == np.float32 and not table.matrix.flags.writeable
        assert np.array_equal(table.matrix, on_disk)
        with pytest.raises(ValueError):
            table.matrix[0, 0] = 1.0  # nothing may change an index's vectors behind the file


def test_the_loaders_squared_norms_are_kept_and_equal_to_a_float64_copys():
    """The norms the load's finiteness pass made are what a search reads (no second pass, no float64 copy):
    bit-equal to those of the matrix copied to float64; a replaced matrix gets its own."""
    index = store.load(SAMPLE)
    for table in index.vectors.values():
        wide = table.matrix.astype(np.float64)
        loaders = cache.values(table)["squared_norms"][1]  # kept by the load, before any search
        kept = validate.table_squared_norms(table)
        assert kept is loaders
        assert np.array_equal(kept, np.einsum("ij,ij->i", wide, wide))
        table.matrix = table.matrix[::-1].copy()
        assert np.array_equal(validate.table_squared_norms(table), kept[::-1])


def test_an_open_index_keeps_its_vectors_when_a_save_replaces_the_folder(tmp_path):
    """A save writes a new folder and swaps it in: the mapped old files stay readable (no SIGBUS)."""
    folder = tmp_path / "index"
    store.save(store.load(SAMPLE), folder, chroma=False)
    old = store.load(folder)
    before = {k: np.array(t.matrix) for k, t in old.vectors.items()}
    answer = run_query(old, "nano.local", "Who is the Lock Queen?").context
    changed = store.load(folder)
    for table in changed.vectors.values():
        table.matrix = np.zeros_like(table.matrix)
    store.save(changed, folder, chroma=False)  # replaces every file old's matrices were mapped from
    assert all(np.array_equal(old.vectors[k].matrix, v) for k, v in before.items())
    assert run_query(old, "nano.local", "Who is the Lock Queen?").context == answer != ""
    assert not store.load(folder).vectors["entities"].matrix.any()


def _networkx_way(entities, relations):
    graph = nx.Graph()
    graph.add_nodes_from(e.name for e in entities)
    graph.add_edges_from((r.source, r.target, {"id": r.id}) for r in relations)
    return graph


def _shape(graph) -> tuple:
    """Everything a retrieval reads off the graph, in its order."""
    return (
        list(graph.nodes(data=True)),
        [(n, list(graph.adj[n].items())) for n in graph],
        list(graph.edges(data=True)),
        list(graph.degree()),
        graph.number_of_edges(),
    )


def test_the_entity_graph_is_what_networkx_builds_edge_for_edge():
    """Repeated and reversed pairs (the last relation's id, the first place), a self loop, endpoints with no
    entity row (nodes where first met), a repeated entity name, an entity with no edge: the same graph,
    orders included, as networkx's own add_nodes_from + add_edges_from."""
    names = ["A", "B", "C", "A", "Lonely", "雨"]
    entities = [Entity(id=f"e{i}", name=n, type="T", description="") for i, n in enumerate(names)]
    pairs = [("A", "B"), ("B", "A"), ("C", "C"), ("Ghost", "A"), ("B", "Ghost2"), ("A", "B"), ("雨", "C"), ("C", "雨")]
    relations = [Relation(id=f"r{i}", source=s, target=t, description="") for i, (s, t) in enumerate(pairs)]
    ours, theirs = entity_graph(entities, relations), _networkx_way(entities, relations)
    assert _shape(ours) == _shape(theirs)
    assert ours.get_edge_data("B", "A") == {"id": "r5"} and ours["A"]["B"] is ours["B"]["A"]
    ours.add_edge("Lonely", "A", id="new")  # still an ordinary, mutable networkx graph
    theirs.add_edge("Lonely", "A", id="new")
    assert _shape(ours) == _shape(theirs)


def test_the_entity_graph_of_the_sample_index_is_networkxs():
    index = store.load(SAMPLE)
    assert _shape(index.graph) == _shape(_networkx_way(index.entities, index.relations))
    assert _shape(entity_graph([], [])) == _shape(nx.Graph())


def test_relations_by_entity_lists_each_names_relations_in_table_order_once():
    rng = np.random.default_rng(3)
    names = ["A", "B", "C", "D", "ghost", "北京"]
    relations = [
        Relation(f"r{i % 40}", names[rng.integers(6)], names[rng.integers(6)], "") for i in range(60)
    ]  # self-loops, a pair twice, ids twice, endpoints without an entity row
    relations.append(Relation("loop", "A", "A", ""))
    expected: dict[str, list[Relation]] = {}
    for r in relations:
        expected.setdefault(r.source, []).append(r)
        if r.target != r.source:
            expected.setdefault(r.target, []).append(r)
    found = RelationsByEntity(relations)
    for name in [*names, "nobody"]:
        got = found.get(name, ())
        assert [id(r) for r in got] == [id(r) for r in expected.get(name, ())], name
        assert found.get(name, ()) is got
    assert RelationsByEntity([]).get("A", ()) == ()
