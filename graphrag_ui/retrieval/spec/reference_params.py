"""The reference libraries' own parameter objects, field by field, and which fields each of their modes reads.

Users of the references pass these objects whole (``asdict(QueryParam(...))``, a GraphRAG
``local_search:`` config section, a context builder's keyword arguments), so every mode accepts any
field of the object it follows: a field it uses is a parameter, an answer-side field goes to the
answer layer, and any other field is ignored and named in the warnings (``param_intake``). Only a
name the object lacks is refused.

A mode names the object it follows with ``ModeSpec.reference = "<object>:<reference mode>"``, e.g.
``"lightrag:naive"`` or ``"graphrag.global:global"``; ``lightrag`` resolves to the release the mode
runs (``lightrag-1.4.7`` or ``lightrag-1.5.7``).

Each field is declared here once: a mode's slider for a field is derived from it
(``Reference.param``), so the slider schema and the intake read the same name, type and default.

Sources read: nano-graphrag 0.0.8.2 ``base.QueryParam`` and ``_op.py``; lightrag-hku 1.4.7 and 1.5.7
``base.QueryParam``, ``operate.py`` and ``lightrag.py`` (``aquery`` / bypass); graphrag 2.3.0, 2.7.0
and 3.3.0 ``config/models/{local,global,basic}_search_config.py``, ``query/factory.py`` and the
context builders' ``build_context`` signatures (identical across those releases).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag_ui.base.i18n import msg
from graphrag_ui.retrieval.spec.schema import ParamSpec

# what a field is about: how the explorer treats it when the mode itself has no parameter of that name
CONTEXT = "context"  # shapes the context: ignored and named (refused when a non-default value would change it)
ANSWER = "answer"  # the answer call (history, streaming, prompt wording): passed to the answer layer
KEYWORDS = "keywords"  # LightRAG's hl_keywords / ll_keywords: the query's keywords
MODE = "mode"  # the reference's mode selector: must agree with the mode being run
OUTPUT = "output"  # what the reference returns (context only, prompt only, references): the explorer returns all
MODEL = "model"  # which model or prompt file the reference deployment uses: the explorer's own settings decide


@dataclass(frozen=True)
class RefField:
    """One field of a reference parameter object."""

    name: str
    type: str  # "int" | "float" | "bool" | "str" | "list" | "dict" | "callable"
    side: str
    default: object = None
    note: str = ""  # what the reference does with it, said when the explorer does not do the same
    fixed: bool = False  # the explorer always behaves as the default: another value is refused


@dataclass(frozen=True)
class Reference:
    """A reference parameter object and, per reference mode, the fields that mode reads."""

    key: str
    library: str  # "LightRAG", "nano-graphrag", "GraphRAG" (as warnings name it)
    title: str
    fields: dict[str, RefField]
    reads: dict[str, frozenset[str]]
    aliases: dict[str, str] = field(default_factory=dict)  # reference spelling -> the explorer's parameter

    def known_names(self) -> set[str]:
        return set(self.fields) | set(self.aliases)

    def param(
        self,
        name: str,
        help_text: str,
        low: float | None = None,
        high: float | None = None,
        step: float | None = None,
        *,
        as_type: str = "",
    ) -> ParamSpec:
        """The mode's slider for field ``name``: its name and default come from this object, never restated.

        ``as_type`` is the slider's type where the explorer reads the field wider than the reference
        declares it (GraphRAG's ``min_community_rank``, an int there, takes fractional ratings here).
        A text field the reference leaves ``None`` (LightRAG's ``user_prompt``: no instruction) is the
        empty text, the only "not set" a text box holds.
        """
        ref = self.fields[name]
        type_ = as_type or ref.type
        default = float(ref.default) if ref.type == type_ == "float" else ref.default
        if default is None and type_ == "str":
            default = ""  # the reference's None ("not set", LightRAG's user_prompt) is the explorer's empty text
        return ParamSpec(name, type_, default, help_text, low, high, step)


def _fields(*items: RefField) -> dict[str, RefField]:
    return {item.name: item for item in items}


def _all_but(fields: dict[str, RefField], *names: str) -> frozenset[str]:
    return frozenset(set(fields) - set(names))


# ---------------------------------------------------------------- nano-graphrag 0.0.8.2 QueryParam
_NANO = _fields(
    RefField("mode", "str", MODE, "global"),
    RefField("only_need_context", "bool", OUTPUT, False),
    RefField("response_type", "str", ANSWER, "Multiple Paragraphs"),
    RefField("level", "int", CONTEXT, 2),
    RefField("top_k", "int", CONTEXT, 20),
    # a class attribute without annotation in 0.0.8.2: set on an instance, not passed to QueryParam(...)
    RefField("naive_max_token_for_text_unit", "int", CONTEXT, 12000),
    RefField("local_max_token_for_text_unit", "int", CONTEXT, 4000),
    RefField("local_max_token_for_local_context", "int", CONTEXT, 4800),
    RefField("local_max_token_for_community_report", "int", CONTEXT, 3200),
    RefField("local_community_single_one", "bool", CONTEXT, False),
    RefField("global_min_community_rating", "float", CONTEXT, 0),
    RefField("global_max_consider_community", "float", CONTEXT, 512),
    RefField("global_max_token_for_community_report", "int", CONTEXT, 16384),
    RefField(
        "global_special_community_map_llm_kwargs",
        "dict",
        MODEL,
        {"response_format": {"type": "json_object"}},
        msg("nano-graphrag passes it to its map calls; the explorer's model calls use its own settings"),
    ),
)
_NANO_COMMON = ("mode", "only_need_context", "response_type")
NANO = Reference(
    "nano",
    "nano-graphrag",
    "nano-graphrag 0.0.8.2 QueryParam",
    _NANO,
    {
        "local": frozenset(
            (
                *_NANO_COMMON,
                "level",
                "top_k",
                "local_max_token_for_text_unit",
                "local_max_token_for_local_context",
                "local_max_token_for_community_report",
                "local_community_single_one",
            )
        ),
        "global": frozenset(
            (
                *_NANO_COMMON,
                "level",
                "global_min_community_rating",
                "global_max_consider_community",
                "global_max_token_for_community_report",
                "global_special_community_map_llm_kwargs",
            )
        ),
        "naive": frozenset((*_NANO_COMMON, "top_k", "naive_max_token_for_text_unit")),
    },
)

# ---------------------------------------------------------------- LightRAG QueryParam, 1.4.7 and 1.5.7
_RERANK = msg(
    "LightRAG reranks only with a rerank model configured, and none runs here (the goldens are made "
    "without one, so the context is LightRAG's unreranked one)"
)
_LIGHTRAG_BOTH = (
    RefField("mode", "str", MODE, "mix"),
    RefField("only_need_context", "bool", OUTPUT, False),
    RefField("only_need_prompt", "bool", OUTPUT, False),
    RefField("response_type", "str", ANSWER, "Multiple Paragraphs"),
    RefField("stream", "bool", ANSWER, False),
    RefField("top_k", "int", CONTEXT, 40),
    RefField("chunk_top_k", "int", CONTEXT, 20),
    RefField("max_entity_tokens", "int", CONTEXT, 6000),
    RefField("max_relation_tokens", "int", CONTEXT, 8000),
    RefField("max_total_tokens", "int", CONTEXT, 30000),
    RefField("hl_keywords", "list", KEYWORDS, []),
    RefField("ll_keywords", "list", KEYWORDS, []),
    RefField("conversation_history", "list", ANSWER, []),
    RefField("user_prompt", "str", ANSWER, None),
    RefField("enable_rerank", "bool", CONTEXT, True, _RERANK),
)
_LIGHTRAG_147 = _fields(
    *_LIGHTRAG_BOTH,
    RefField("history_turns", "int", ANSWER, 0),
    RefField(
        "model_func",
        "callable",
        MODEL,
        None,
        msg("a Python callable in LightRAG; the explorer answers with its configured model (Settings)"),
        fixed=True,
    ),
)
_LIGHTRAG_157 = _fields(
    *_LIGHTRAG_BOTH,
    RefField("include_references", "bool", OUTPUT, False),
    RefField(
        "disable_user_prompt_prefix",
        "bool",
        ANSWER,
        False,
        msg("LightRAG's server-side prompt prefix does not exist here, so there is nothing to disable"),
    ),
)
_KG_IGNORED = ()  # the knowledge-graph modes read every field
_NAIVE_IGNORED = ("max_entity_tokens", "max_relation_tokens", "hl_keywords", "ll_keywords")


def _lightrag(version: str, fields: dict[str, RefField]) -> Reference:
    bypass_reads = {"mode", "stream", "conversation_history", "model_func"} & set(fields)
    reads = {m: _all_but(fields, *_KG_IGNORED) for m in ("local", "global", "hybrid", "mix")}
    reads["naive"] = _all_but(fields, *_NAIVE_IGNORED)
    reads["bypass"] = frozenset(bypass_reads)
    return Reference(f"lightrag-{version}", "LightRAG", f"lightrag-hku {version} QueryParam", fields, reads)


LIGHTRAG_147 = _lightrag("1.4.7", _LIGHTRAG_147)
LIGHTRAG_157 = _lightrag("1.5.7", _LIGHTRAG_157)

# ---------------------------------------------------------------- GraphRAG 2.x / 3.x search parameters
_MODEL_ID = msg("which configured model GraphRAG uses; the explorer uses its own model settings")
_PROMPT = msg("GraphRAG's prompt file; the explorer sends its own prompt wording (docs/differences/llm.md)")
_CONFIG_MODEL = (
    RefField("chat_model_id", "str", MODEL, "default_chat_model", _MODEL_ID),  # 2.x
    RefField("completion_model_id", "str", MODEL, "default_completion_model", _MODEL_ID),  # 3.x
)
_API = (
    RefField("community_level", "int", CONTEXT, 2),
    RefField("response_type", "str", ANSWER, "Multiple Paragraphs"),
)
_HISTORY_TABLE = msg(
    "GraphRAG writes the conversation history into the context as a table, which the explorer does not "
    "build (docs/differences/ms.md)"
)
_DELIMITER = msg("GraphRAG's default column delimiter '|', the only one the explorer writes")


def _fixed(name: str, type_: str, default: object, note: str) -> RefField:
    return RefField(name, type_, CONTEXT, default, note, fixed=True)


_GR_LOCAL = _fields(
    *_API,
    *_CONFIG_MODEL,
    RefField("prompt", "str", MODEL, None, _PROMPT),
    RefField("embedding_model_id", "str", MODEL, "default_embedding_model", _MODEL_ID),
    RefField("text_unit_prop", "float", CONTEXT, 0.5),
    RefField("community_prop", "float", CONTEXT, 0.15),
    RefField("conversation_history_max_turns", "int", CONTEXT, 5, _HISTORY_TABLE),
    RefField("conversation_history_user_turns_only", "bool", CONTEXT, True, _HISTORY_TABLE),
    _fixed("conversation_history", "list", None, _HISTORY_TABLE),
    RefField("top_k_mapped_entities", "int", CONTEXT, 10),
    RefField("top_k_relationships", "int", CONTEXT, 10),
    RefField("max_context_tokens", "int", CONTEXT, 12000),
    RefField("include_entity_rank", "bool", CONTEXT, True),
    RefField("include_relationship_weight", "bool", CONTEXT, True),
    RefField("include_community_rank", "bool", CONTEXT, False),
    RefField("use_community_summary", "bool", CONTEXT, False),
    RefField("min_community_rank", "int", CONTEXT, 0),
    _fixed(
        "include_entity_names", "list", None, msg("GraphRAG's forced entity list, which the explorer does not take")
    ),
    _fixed(
        "exclude_entity_names", "list", None, msg("GraphRAG's excluded entity list, which the explorer does not take")
    ),
    _fixed("rank_description", "str", "number of relationships", msg("GraphRAG's default column name")),
    _fixed("relationship_ranking_attribute", "str", "rank", msg("GraphRAG's default ranking attribute")),
    _fixed("community_context_name", "str", "Reports", msg("GraphRAG's default section name")),
    _fixed("column_delimiter", "str", "|", _DELIMITER),
    _fixed("embedding_vectorstore_key", "str", "id", msg("GraphRAG's factory default (entity ids as vector keys)")),
    RefField("return_candidate_context", "bool", OUTPUT, False),
)
GRAPHRAG_LOCAL = Reference(
    "graphrag.local",
    "GraphRAG",
    "GraphRAG 2.x/3.x local search (local_search config, LocalSearchMixedContext.build_context, api.local_search)",
    _GR_LOCAL,
    {"local": _all_but(_GR_LOCAL)},
    aliases={"top_k_entities": "top_k_mapped_entities"},
)

_GR_GLOBAL = _fields(
    *_API,
    *_CONFIG_MODEL,
    RefField("map_prompt", "str", MODEL, None, _PROMPT),
    RefField("reduce_prompt", "str", MODEL, None, _PROMPT),
    RefField("knowledge_prompt", "str", MODEL, None, _PROMPT),
    RefField("dynamic_community_selection", "bool", CONTEXT, False),
    RefField("max_context_tokens", "int", CONTEXT, 12000),
    RefField("data_max_tokens", "int", CONTEXT, 12000),
    RefField("map_max_length", "int", ANSWER, 1000),
    RefField("reduce_max_length", "int", ANSWER, 2000),
    RefField("dynamic_search_threshold", "int", CONTEXT, 1),
    RefField("dynamic_search_keep_parent", "bool", CONTEXT, False),
    RefField("dynamic_search_num_repeats", "int", CONTEXT, 1),
    RefField("dynamic_search_use_summary", "bool", CONTEXT, False),
    RefField("dynamic_search_max_level", "int", CONTEXT, 2),
    RefField("use_community_summary", "bool", CONTEXT, False),
    RefField("shuffle_data", "bool", CONTEXT, True),
    RefField("random_state", "int", CONTEXT, 86),
    RefField("include_community_rank", "bool", CONTEXT, True),
    RefField("min_community_rank", "int", CONTEXT, 0),
    RefField("include_community_weight", "bool", CONTEXT, True),
    RefField("normalize_community_weight", "bool", CONTEXT, True),
    _fixed("community_rank_name", "str", "rank", msg("GraphRAG's factory default column name")),
    _fixed("community_weight_name", "str", "occurrence weight", msg("GraphRAG's factory default column name")),
    _fixed("context_name", "str", "Reports", msg("GraphRAG's default section name")),
    _fixed("column_delimiter", "str", "|", _DELIMITER),
    _fixed("allow_general_knowledge", "bool", False, msg("GraphRAG's factory default")),
    _fixed("json_mode", "bool", False, msg("GraphRAG's factory default (the map prompt asks for JSON in its text)")),
    _fixed("conversation_history", "list", None, _HISTORY_TABLE),
    RefField("conversation_history_max_turns", "int", CONTEXT, 5, _HISTORY_TABLE),
    RefField("conversation_history_user_turns_only", "bool", CONTEXT, True, _HISTORY_TABLE),
)
GRAPHRAG_GLOBAL = Reference(
    "graphrag.global",
    "GraphRAG",
    "GraphRAG 2.x/3.x global search (global_search config incl. dynamic selection, GlobalCommunityContext, api.global_search)",
    _GR_GLOBAL,
    {"global": _all_but(_GR_GLOBAL)},
    aliases={"max_data_tokens": "data_max_tokens"},
)

_GR_BASIC = _fields(
    RefField("response_type", "str", ANSWER, "Multiple Paragraphs"),
    *_CONFIG_MODEL,
    RefField("prompt", "str", MODEL, None, _PROMPT),
    RefField("embedding_model_id", "str", MODEL, "default_embedding_model", _MODEL_ID),
    RefField("k", "int", CONTEXT, 10),
    RefField("max_context_tokens", "int", CONTEXT, 12000),
    _fixed("context_name", "str", "Sources", msg("GraphRAG's default section name")),
    _fixed("column_delimiter", "str", "|", _DELIMITER),
    _fixed("text_id_col", "str", "id", msg("GraphRAG's default column")),
    _fixed("text_col", "str", "text", msg("GraphRAG's default column")),
    _fixed("embedding_vectorstore_key", "str", "id", msg("GraphRAG's factory default")),
    _fixed("conversation_history", "list", None, _HISTORY_TABLE),
)
GRAPHRAG_BASIC = Reference(
    "graphrag.basic",
    "GraphRAG",
    "GraphRAG 2.x/3.x basic search (basic_search config, BasicSearchContext.build_context, api.basic_search)",
    _GR_BASIC,
    {"basic": _all_but(_GR_BASIC)},
)

_DRIFT_MODEL = msg("a model setting of DRIFT's calls; the explorer's calls use its own model settings")
_GR_DRIFT = _fields(
    *_API,
    *_CONFIG_MODEL,
    RefField("prompt", "str", MODEL, None, _PROMPT),
    RefField("reduce_prompt", "str", MODEL, None, _PROMPT),
    RefField("embedding_model_id", "str", MODEL, "default_embedding_model", _MODEL_ID),
    RefField("drift_k_followups", "int", CONTEXT, 20),
    RefField("primer_folds", "int", CONTEXT, 5),
    RefField("primer_llm_max_tokens", "int", MODEL, 12000, msg("graphrag 3.3.0 reads it nowhere")),
    RefField("n_depth", "int", CONTEXT, 3),
    RefField("data_max_tokens", "int", CONTEXT, 12000, msg("graphrag 3.3.0 reads it nowhere in DRIFT search")),
    RefField("concurrency", "int", MODEL, 32, _DRIFT_MODEL),
    RefField("reduce_max_tokens", "int", MODEL, None, _DRIFT_MODEL),
    RefField("reduce_temperature", "float", MODEL, 0, _DRIFT_MODEL),
    RefField("reduce_max_completion_tokens", "int", MODEL, None, _DRIFT_MODEL),
    RefField("local_search_text_unit_prop", "float", CONTEXT, 0.9),
    RefField("local_search_community_prop", "float", CONTEXT, 0.1),
    RefField("local_search_top_k_mapped_entities", "int", CONTEXT, 10),
    RefField("local_search_top_k_relationships", "int", CONTEXT, 10),
    RefField("local_search_max_data_tokens", "int", CONTEXT, 12000),
    RefField("local_search_temperature", "float", MODEL, 0, _DRIFT_MODEL),
    RefField("local_search_top_p", "float", MODEL, 1, _DRIFT_MODEL),
    RefField("local_search_n", "int", MODEL, 1, _DRIFT_MODEL),
    RefField("local_search_llm_max_gen_tokens", "int", MODEL, None, _DRIFT_MODEL),
    RefField("local_search_llm_max_gen_completion_tokens", "int", MODEL, None, _DRIFT_MODEL),
)
GRAPHRAG_DRIFT = Reference(
    "graphrag.drift",
    "GraphRAG",
    "GraphRAG 2.7.0 / 3.3.0 DRIFT search (drift_search config, DRIFTSearchContextBuilder, DRIFTPrimer, api.drift_search)",
    _GR_DRIFT,
    {"drift": _all_but(_GR_DRIFT)},
)

CATALOGUE: dict[str, Reference] = {
    ref.key: ref
    for ref in (NANO, LIGHTRAG_147, LIGHTRAG_157, GRAPHRAG_LOCAL, GRAPHRAG_GLOBAL, GRAPHRAG_BASIC, GRAPHRAG_DRIFT)
}


def follows(reference: str, version: str = "") -> tuple[Reference, str]:
    """The object and reference mode a ``ModeSpec.reference`` names (``"lightrag:naive"`` + ``"1.5.7"``)."""
    obj, _, ref_mode = reference.partition(":")
    key = f"{obj}-{version}" if version and f"{obj}-{version}" in CATALOGUE else obj
    if key not in CATALOGUE or ref_mode not in CATALOGUE[key].reads:
        raise KeyError(f"no reference parameter object {reference!r} (version {version!r}) in the catalogue")
    return CATALOGUE[key], ref_mode
