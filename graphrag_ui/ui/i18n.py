"""UI strings in English and Simplified Chinese.

``t(key)`` looks up the app's own strings. ``tr(text)`` translates a message the package wrote in
English (a warning, an error, a mode summary, a parameter's help, a table row's reason) through
``messages_zh.MESSAGES`` and ``reasons_zh.REASONS``, keyed by the English template, so the retrieval layer never imports the UI and a parameterised
message keeps its values. Both fall back to English; the zh catalogue test finds what is missing.
"""

from __future__ import annotations

import functools
import re

from graphrag_ui.ui.messages_zh import MESSAGES
from graphrag_ui.ui.reasons_zh import REASONS

# every package text with its Chinese: messages (warnings, errors, help) and the tables' reasons
ZH_TEXTS = {**MESSAGES, **REASONS}
# placeholders whose values are index data (entity names, ids, stored values): never translated
_DATA_FIELDS = frozenset({"name", "names", "pair", "cid", "raw"})

LANGUAGES = {"en": "English", "zh": "简体中文"}

_STRINGS: dict[str, dict[str, str]] = {
    "explore": {"en": "Explore", "zh": "检索探索"},
    "compare": {"en": "Compare", "zh": "对比"},
    "recall": {"en": "Entity recall", "zh": "实体召回"},
    "graph": {"en": "Graph", "zh": "图谱"},
    "index": {"en": "Index", "zh": "索引"},
    "settings": {"en": "Settings", "zh": "设置"},
    "language": {"en": "Language", "zh": "语言"},
    "index_pick": {"en": "Index", "zh": "索引"},
    "question": {"en": "Question", "zh": "问题"},
    "suggested": {"en": "Suggested questions", "zh": "示例问题"},
    "mode": {"en": "Retrieval mode", "zh": "检索模式"},
    "parameters": {"en": "Parameters", "zh": "参数"},
    "version": {"en": "Reference version", "zh": "参考版本"},
    "url_param_unknown": {
        "en": "The link's parameter {param} names nothing {mode} or its reference knows ({fix}); it was left out.",
        "zh": "链接参数 {param} 不是 {mode} 或其参考实现的参数（{fix}），已忽略。",
    },
    "version_help": {
        "en": "Which release of the reference library this mode reproduces, byte for byte. Default: the release "
        "that wrote the index (1.4.7 for built and sample indexes).",
        "zh": "此模式逐字节复现的参考库版本。默认：写出该索引的版本（自建索引和示例索引为 1.4.7）。",
    },
    "keywords": {"en": "Keywords (LightRAG)", "zh": "关键词（LightRAG）"},
    "hl": {"en": "High-level keywords", "zh": "高层关键词"},
    "ll": {"en": "Low-level keywords", "zh": "低层关键词"},
    "keywords_help": {
        "en": "Comma-separated. Leave both empty to let the model (or the offline extractor) choose.",
        "zh": "用逗号分隔。都留空则由模型（或离线抽取器）生成。",
    },
    "answer": {"en": "Answer", "zh": "回答"},
    "ask": {"en": "Generate answer", "zh": "生成回答"},
    "retry": {"en": "Retry", "zh": "重试"},
    "answer_incomplete": {
        "en": "Incomplete answer: the stream stopped before the model finished, so the text above is cut short "
        "and was not cached. ({error})",
        "zh": "回答不完整：模型尚未结束时数据流就中断了，上面的文字被截断，且未写入缓存。（{error}）",
    },
    "entities": {"en": "Entities", "zh": "实体"},
    "relations": {"en": "Relations", "zh": "关系"},
    "communities": {"en": "Communities", "zh": "社区"},
    "chunks": {"en": "Chunks", "zh": "文本块"},
    "budget": {"en": "Budget", "zh": "预算"},
    "trace": {"en": "Trace", "zh": "步骤"},
    "context": {"en": "Context", "zh": "上下文"},
    "prompt": {"en": "Prompt", "zh": "提示词"},
    "in_context": {"en": "In the context", "zh": "进入上下文"},
    "dropped": {"en": "Considered but dropped", "zh": "考虑过但被丢弃"},
    "none": {"en": "Nothing in this section.", "zh": "此部分为空。"},
    "download_context": {"en": "Download context", "zh": "下载上下文"},
    "download_json": {"en": "Download Retrieval JSON", "zh": "下载检索结果 JSON"},
    "download_csv": {"en": "Download CSV", "zh": "下载 CSV"},
    "download_graph": {"en": "Download graph HTML", "zh": "下载图谱 HTML"},
    "no_model": {
        "en": "No LLM configured: showing the prompt that would be sent. Configure a model on the Settings page.",
        "zh": "未配置大模型：下面是将要发送的提示词。请在“设置”页配置模型。",
    },
    "node_details": {"en": "Node details", "zh": "节点详情"},
    "capped": {"en": "Graph capped at {n} nodes (of {total}).", "zh": "图谱最多显示 {n} 个节点（共 {total} 个）。"},
    "warnings": {"en": "Warnings", "zh": "提示"},
    "left": {"en": "Left", "zh": "左侧"},
    "right": {"en": "Right", "zh": "右侧"},
    "overlap": {"en": "Overlap", "zh": "重合度"},
    "only_left": {"en": "Only left", "zh": "仅左侧"},
    "only_right": {"en": "Only right", "zh": "仅右侧"},
    "search_entity": {"en": "Search an entity", "zh": "搜索实体"},
    "depth": {"en": "Neighbourhood depth", "zh": "邻居深度"},
    "level": {"en": "Community level", "zh": "社区层级"},
    "community": {"en": "Community", "zh": "社区"},
    "stats": {"en": "Index statistics", "zh": "索引统计"},
    "run_recall": {"en": "Recall text", "zh": "召回文本"},
    "empty_result": {
        "en": "{mode} found nothing for this question: no entity, relation, community or chunk made it into the "
        "context. The dropped rows in each tab say why; try another mode, a lower threshold or different keywords.",
        "zh": "{mode} 没有为这个问题找到任何内容：没有实体、关系、社区或文本块进入上下文。各标签页中被丢弃的行说明了原因；"
        "请尝试其他模式、更低的阈值或不同的关键词。",
    },
    "open_folder": {"en": "Open folder", "zh": "打开文件夹"},
    "import": {"en": "Import", "zh": "导入"},
    "build": {"en": "Build from documents", "zh": "从文档构建"},
    "reembed": {"en": "Re-embed", "zh": "重新嵌入"},
    "open": {"en": "Open", "zh": "打开"},
    "index_folder": {
        "en": "Index folder (made by build, import or reembed)",
        "zh": "索引文件夹（由构建、导入或重新嵌入生成）",
    },
    "source_kind": {"en": "Source kind", "zh": "来源类型"},
    "source_folder": {
        "en": "Source folder (working dir / GraphRAG output)",
        "zh": "来源文件夹（工作目录 / GraphRAG 输出）",
    },
    "new_name": {"en": "Name of the new index", "zh": "新索引名称"},
    "source_embedder": {
        "en": "Embedder that made the source vectors (e.g. hash, litellm:text-embedding-3-small)",
        "zh": "生成来源向量的嵌入模型（例如 hash、litellm:text-embedding-3-small）",
    },
    "documents": {"en": "Documents (.txt / .md, UTF-8, ≤ 5 MB each)", "zh": "文档（.txt / .md，UTF-8，每个 ≤ 5 MB）"},
    "upload_button": {"en": "Upload", "zh": "上传"},  # Streamlit's own words, relabelled by uploader_text
    "upload_limit": {"en": "{size} per file • {types}", "zh": "单个文件不超过 {size} • {types}"},
    "extractor": {"en": "Extractor", "zh": "抽取器"},
    "embedder": {"en": "Embedder", "zh": "嵌入模型"},
    "why_dropped": {"en": "why dropped", "zh": "丢弃原因"},
    "tokens_used": {"en": "Tokens in the context", "zh": "上下文 token 数"},
    "headroom": {"en": "Headroom under the limits", "zh": "剩余额度"},
    "sections_full": {"en": "Sections at their limit", "zh": "已满的部分"},
    "ask_something": {
        "en": "Type a question (or pick a suggested one) to see what each mode retrieves.",
        "zh": "输入一个问题（或选择示例问题），查看各检索模式召回的内容。",
    },
    "graph_empty": {
        "en": "Nothing to draw: this mode recalled no entities or relations. Try another mode or a larger top_k.",
        "zh": "没有可绘制的内容：该模式没有召回实体或关系。请换一种模式或调大 top_k。",
    },
    "graph_view": {"en": "Graph view", "zh": "图谱视图"},
    "view_interactive": {"en": "Interactive (click a node)", "zh": "交互式（点击节点）"},
    "view_standalone": {"en": "Standalone (pyvis)", "zh": "独立页面（pyvis）"},
    "graph_view_help": {
        "en": "Interactive: click a node to see its details beside the graph. Standalone: the same graph as the "
        "self-contained pyvis page you can download.",
        "zh": "交互式：点击节点即可在旁边查看详情。独立页面：与可下载的 pyvis 独立网页相同的图谱。",
    },
    "click_or_pick": {"en": "Click a node in the graph, or pick one", "zh": "点击图中的节点，或在此选择"},
    "node_missing": {"en": "{name} is not an entity of this index.", "zh": "{name} 不是该索引中的实体。"},
    "type": {"en": "Type", "zh": "类型"},
    "degree": {"en": "Degree", "zh": "度"},
    "role": {"en": "Role in this view", "zh": "在此视图中的角色"},
    "why": {"en": "Why selected", "zh": "入选原因"},
    "description": {"en": "Description", "zh": "描述"},
    "aliases": {"en": "Aliases", "zh": "别名"},
    "source_chunks": {"en": "Source chunks", "zh": "来源文本块"},
    "report": {"en": "Community report", "zh": "社区报告"},
    "community_help": {
        "en": "A community id at the chosen level; empty = browse around the entity.",
        "zh": "所选层级的社区编号；留空则围绕实体浏览。",
    },
    "graph_caption": {
        "en": "Colour = community · size = degree · ★ = searched entity. Hover a node for a summary; click it for "
        "details.",
        "zh": "颜色 = 社区 · 大小 = 度 · ★ = 搜索的实体。悬停查看摘要，点击查看详情。",
    },
    "unexpected": {
        "en": "Something went wrong while drawing this page ({what}). Try again or change the last setting; if it "
        "persists, pick another index and report the server log.",
        "zh": "绘制此页面时出错（{what}）。请重试或撤销上一次修改；若仍然出错，请换一个索引并提交服务器日志。",
    },
}

# map-reduce modes (ms.global, nano.global): their stages, tables and answer
_STRINGS.update(
    {
        "batches": {"en": "Batches", "zh": "批次"},
        "points": {"en": "Points", "zh": "要点"},
        "stages_need_model": {
            "en": "The {n} map batches and their exact prompts are ready (see Batches). The map and reduce stages "
            "need a language model and none is configured, so there are no points, reduce context or answer yet; "
            "configure one in Settings.",
            "zh": "{n} 个映射批次及其完整提示词已准备好（见“批次”）。映射与归约阶段需要语言模型，当前未配置，"
            "因此还没有要点、归约上下文或回答；请在“设置”中配置模型。",
        },
        "no_batches": {"en": "No report reached a map batch.", "zh": "没有报告进入映射批次。"},
        "ratings": {
            "en": "Dynamic community selection: the model's rating of each community",
            "zh": "动态社区选择：模型对每个社区的评分",
        },
        "map_prompt_of": {
            "en": "Map prompt · batch {batch} · {n} reports · {tokens} tokens",
            "zh": "映射提示词 · 批次 {batch} · {n} 份报告 · {tokens} 个 token",
        },
        "no_points_yet": {
            "en": "Points come from the map answers: ask for an answer to run the map stage.",
            "zh": "要点来自映射阶段的回答：生成回答即可运行映射阶段。",
        },
        "no_points": {"en": "The map answers gave no points.", "zh": "映射阶段的回答中没有要点。"},
        "in_reduce_context": {"en": "In the reduce context", "zh": "进入归约上下文"},
        "stage_calls": {"en": "Model calls of the map and reduce stages", "zh": "映射与归约阶段的模型调用"},
        "stage_totals": {
            "en": "{calls} calls · {tokens:,} tokens · cost {cost} (cached calls cost nothing now)",
            "zh": "{calls} 次调用 · {tokens:,} 个 token · 费用 {cost}（命中缓存的调用本次不产生费用）",
        },
        "reduce_context": {"en": "Reduce context", "zh": "归约上下文"},
        "reduce_prompt": {"en": "Reduce prompt", "zh": "归约提示词"},
        "batch_context": {
            "en": "Map batch {batch} context · {tokens} / {limit} tokens",
            "zh": "映射批次 {batch} 的上下文 · {tokens} / {limit} 个 token",
        },
        "map_progress": {"en": "Map calls: {done} of {total} done", "zh": "映射调用：已完成 {done} / {total}"},
        "answer_cache": {"en": "answer cache", "zh": "回答缓存"},
        "answer_cache_help": {"en": "reuse an identical earlier answer", "zh": "复用相同的先前回答"},
        "ask_staged": {
            "en": "Generate answer ({n} map calls, then reduce)",
            "zh": "生成回答（{n} 次映射调用，然后归约）",
        },
        "staged_answer_caption": {
            "en": "{model} · {calls} calls ({cached} from the cache) · {tokens:,} tokens · cost {cost}",
            "zh": "{model} · {calls} 次调用（{cached} 次来自缓存）· {tokens:,} 个 token · 费用 {cost}",
        },
        "cost_unknown": {"en": "unknown (the model has no price)", "zh": "未知（该模型无价格信息）"},
        "col_batch": {"en": "batch", "zh": "批次"},
        "col_reports": {"en": "reports", "zh": "报告数"},
        "col_tokens": {"en": "tokens", "zh": "token 数"},
        "col_limit": {"en": "budget", "zh": "预算"},
        "col_fill": {"en": "of budget", "zh": "占预算"},
        "col_points": {"en": "points", "zh": "要点数"},
        "col_kept": {"en": "kept", "zh": "保留"},
        "col_map": {"en": "map call", "zh": "映射调用"},
        "col_report_ids": {"en": "reports in order", "zh": "报告（按顺序）"},
        "col_stage": {"en": "stage", "zh": "阶段"},
        "col_label": {"en": "for", "zh": "对象"},
        "col_ms": {"en": "ms", "zh": "毫秒"},
        "col_prompt_tokens": {"en": "prompt tokens", "zh": "提示 token"},
        "col_answer_tokens": {"en": "answer tokens", "zh": "回答 token"},
        "col_cost_usd": {"en": "cost (USD)", "zh": "费用（美元）"},
        "col_cached": {"en": "cached", "zh": "缓存"},
        "col_ok": {"en": "ok", "zh": "成功"},
        "col_error": {"en": "error", "zh": "错误"},
        "col_parsed": {"en": "items read", "zh": "解析条目"},
        "col_score": {"en": "score", "zh": "分数"},
        "col_description": {"en": "point", "zh": "要点"},
        "col_why": {"en": "why kept", "zh": "保留原因"},
        "col_why_dropped": {"en": "why dropped", "zh": "丢弃原因"},
        "col_community": {"en": "community", "zh": "社区"},
        "col_title": {"en": "title", "zh": "标题"},
        "col_level": {"en": "level", "zh": "层级"},
        "col_rating": {"en": "rating", "zh": "评分"},
        "col_reason": {"en": "why", "zh": "原因"},
    }
)


# this round: the rest of the UI (headers, placeholders, notices, Index, Recall and Settings pages)
_STRINGS.update(
    {
        "choose": {"en": "Choose an option", "zh": "请选择"},
        "threshold_dead_end": {
            "en": "The best candidate scores {best}, below {name} {threshold}, so (almost) nothing reached the "
            "context. Just below that score, {n} items would. The default stays the reference's.",
            "zh": "最佳候选的得分是 {best}，低于 {name} {threshold}，因此（几乎）没有内容进入上下文。"
            "若把阈值设在该得分之下，将有 {n} 项进入。默认值仍是参考实现的取值。",
        },
        "threshold_lower": {
            "en": "Set {name} to {value} for this view",
            "zh": "在此视图中把 {name} 设为 {value}",
        },
        "progress_line": {
            "en": "{stage}: {done}/{total} · {rate} · {eta} left",
            "zh": "{stage}：{done}/{total} · {rate} · 剩余 {eta}",
        },
        "ready": {
            "en": "Ready: {label} is open now (and listed in the sidebar picker).",
            "zh": "完成：{label} 已打开（并已列入侧边栏的索引选择）。",
        },
        "stat_source": {"en": "Source system", "zh": "来源系统"},
        "stat_tokenizer": {"en": "Tokenizer", "zh": "分词器"},
        "stat_vectors": {"en": "Vectors live in", "zh": "向量存放位置"},
        "vectors_local": {"en": "local (chroma in the folder)", "zh": "本地（文件夹内的 chroma）"},
        "stat_documents": {"en": "documents", "zh": "文档"},
        "stat_chunks": {"en": "chunks", "zh": "文本块"},
        "stat_entities": {"en": "entities", "zh": "实体"},
        "stat_relations": {"en": "relations", "zh": "关系"},
        "stat_communities": {"en": "communities", "zh": "社区"},
        "stat_vectors_entities": {"en": "entity vectors", "zh": "实体向量"},
        "stat_vectors_relations": {"en": "relation vectors", "zh": "关系向量"},
        "stat_vectors_chunks": {"en": "chunk vectors", "zh": "文本块向量"},
        "stat_vectors_communities": {"en": "community vectors", "zh": "社区向量"},
        "degree_histogram": {"en": "Degree histogram: entities per degree", "zh": "度分布：每个度的实体数"},
        "community_sizes": {"en": "Community sizes", "zh": "社区规模"},
        "not_index_folder": {
            "en": "{path}: no manifest.json here — this is not an index folder (import a source folder instead).",
            "zh": "{path}：这里没有 manifest.json —— 这不是索引文件夹（请改为导入来源文件夹）。",
        },
        "kind_auto": {"en": "auto (detect)", "zh": "自动识别"},
        "importing": {"en": "Importing…", "zh": "正在导入…"},
        "building": {"en": "Building the index…", "zh": "正在构建索引…"},
        "reembedding": {"en": "Re-embedding…", "zh": "正在重新嵌入…"},
        "detected": {"en": "detected {found}", "zh": "识别为 {found}"},
        "import_warning": {"en": " — warning: {warning}", "zh": " —— 警告：{warning}"},
        "extractor_offline": {"en": "offline", "zh": "离线"},
        "extractor_llm": {"en": "LLM", "zh": "大模型（LLM）"},
        "current_embedder": {"en": "Current embedder: **{embedder}**", "zh": "当前嵌入模型：**{embedder}**"},
        "new_embedder": {"en": "New embedder", "zh": "新的嵌入模型"},
        "samples_read_only": {
            "en": "The bundled samples are read-only; import or build a copy to re-embed it.",
            "zh": "内置示例是只读的；请先导入或构建一份副本再重新嵌入。",
        },
        "reembedded": {
            "en": "Re-embedded; the index reloads with the new vectors.",
            "zh": "已重新嵌入；索引将用新向量重新加载。",
        },
        "llm": {"en": "LLM", "zh": "大模型（LLM）"},
        "llm_model": {"en": "model (GRAPHRAG_UI_LLM_MODEL)", "zh": "模型（GRAPHRAG_UI_LLM_MODEL）"},
        "llm_api_base": {"en": "API base (GRAPHRAG_UI_LLM_API_BASE)", "zh": "API 地址（GRAPHRAG_UI_LLM_API_BASE）"},
        "llm_api_key": {"en": "API key", "zh": "API 密钥"},
        "llm_no_key": {"en": "(none found)", "zh": "（未找到）"},
        "llm_howto": {
            "en": "Set GRAPHRAG_UI_LLM_MODEL (any litellm model name, e.g. openai/gpt-4o-mini, ollama/llama3, "
            "openai/<name> with GRAPHRAG_UI_LLM_API_BASE for a local OpenAI-compatible server) and the provider's "
            "key variable in the environment or .streamlit/secrets.toml, then restart the app.",
            "zh": "在环境变量或 .streamlit/secrets.toml 中设置 GRAPHRAG_UI_LLM_MODEL（任意 litellm 模型名，例如 "
            "openai/gpt-4o-mini、ollama/llama3；本地 OpenAI 兼容服务用 openai/<name> 加 GRAPHRAG_UI_LLM_API_BASE）"
            "以及服务商的密钥变量，然后重启应用。",
        },
        "test_connection": {"en": "Test connection", "zh": "测试连接"},
        "calling_model": {"en": "Calling the model…", "zh": "正在调用模型…"},
        "embedders": {"en": "Embedders", "zh": "嵌入模型"},
        "embedded_with": {
            "en": "This index was embedded with **{embedder}** ({dim} dimensions).",
            "zh": "该索引使用 **{embedder}** 嵌入（{dim} 维）。",
        },
        "embedders_available": {"en": "Available: {names}", "zh": "可用：{names}"},
        "app_folders": {
            "en": "App data folder: {home} · offline tokenizer cache: {tiktoken}",
            "zh": "应用数据文件夹：{home} · 离线分词器缓存：{tiktoken}",
        },
        "recall_formula": {
            "en": "score = w_ilike·ilike + w_sim·sim + w_occ·log(occurrence+1). ILIKE runs first; vector recall only "
            "fills in when ILIKE finds fewer than the limit.",
            "zh": "得分 = w_ilike·ilike + w_sim·sim + w_occ·log(出现次数+1)。先运行 ILIKE；只有 ILIKE 找到的数量少于上限时，"
            "才用向量召回补足。",
        },
        "recall_limit": {"en": "limit", "zh": "上限"},
        "recall_threshold": {"en": "cosine threshold", "zh": "余弦阈值"},
        "recall_ilike_only": {"en": "{error} — showing ILIKE only.", "zh": "{error} —— 仅显示 ILIKE 结果。"},
        "recall_ilike": {"en": "ILIKE ({n})", "zh": "ILIKE（{n}）"},
        "recall_vector": {"en": "vector ({n})", "zh": "向量（{n}）"},
        "recall_vector_skipped": {
            "en": "hybrid skips this list: ILIKE already found the limit",
            "zh": "hybrid 跳过此列表：ILIKE 已经找到足够数量",
        },
        "recall_hybrid": {"en": "hybrid ranking", "zh": "hybrid 综合排名"},
        "graph_tip": {"en": "{label}: {value}", "zh": "{label}：{value}"},
        "weight": {"en": "Weight", "zh": "权重"},
        "graph_dropped_because": {"en": "{why} — dropped: {dropped}", "zh": "{why} —— 丢弃原因：{dropped}"},
        "graph_legend_keys": {
            "en": "★ recalled · ● context / neighbour · ◆ dropped · red edge = relation in the context",
            "zh": "★ 召回 · ● 上下文 / 邻居 · ◆ 被丢弃 · 红色边 = 上下文中的关系",
        },
        "graph_role_seed": {"en": "recalled entity", "zh": "召回的实体"},
        "graph_role_context": {"en": "endpoint of a relation in the context", "zh": "上下文中某条关系的端点"},
        "graph_role_dropped": {"en": "considered but dropped", "zh": "考虑过但被丢弃"},
        "graph_role_neighbour": {"en": "1-hop neighbour (not retrieved)", "zh": "一跳邻居（未被检索）"},
        "graph_role_centre": {"en": "searched entity / community member", "zh": "搜索的实体 / 社区成员"},
        "graph_role_nearby": {"en": "within the chosen neighbourhood depth", "zh": "在所选邻居深度之内"},
        "no_index": {
            "en": "No index found: build one on the Index page.",
            "zh": "没有找到索引：请在“索引”页构建一个。",
        },
        "index_open_failed": {
            "en": "Could not open the index at {path}: {error}",
            "zh": "无法打开 {path} 处的索引：{error}",
        },
        "sample_en": {"en": "Sample · English", "zh": "示例 · 英文（潮汐工会）"},
        "sample_zh": {"en": "Sample · 中文（跑步与睡眠）", "zh": "示例 · 中文（跑步与睡眠）"},
        "loading_index": {"en": "Loading index…", "zh": "正在加载索引…"},
        "role_system": {"en": "system", "zh": "系统消息"},
        "role_user": {"en": "user", "zh": "用户消息"},
        "role_assistant": {"en": "assistant", "zh": "助手消息"},
        "col_order": {"en": "#", "zh": "序"},
        "col_order_help": {"en": "order in which the mode found the item", "zh": "该模式找到此项的顺序"},
        "col_label_name": {"en": "label", "zh": "名称"},
        "col_score_help": {"en": "similarity or the reference's score", "zh": "相似度或参考实现自己的得分"},
        "col_rank": {"en": "rank", "zh": "排名"},
        "col_rank_help": {"en": "degree or the reference's rank", "zh": "度或参考实现自己的排名"},
        "col_tokens_help": {"en": "tokens this row adds to the context", "zh": "此行为上下文增加的 token 数"},
        "col_id": {"en": "id", "zh": "编号"},
        "col_step": {"en": "step", "zh": "步骤"},
        "col_detail": {"en": "detail", "zh": "详情"},
        "col_in": {"en": "in", "zh": "输入数"},
        "col_out": {"en": "out", "zh": "输出数"},
        "col_section": {"en": "section", "zh": "部分"},
        "col_used": {"en": "used", "zh": "已用"},
        "col_headroom": {"en": "headroom", "zh": "剩余"},
        "col_limit_help": {"en": "empty: the section has no limit of its own", "zh": "为空：该部分没有自己的上限"},
        "col_kind": {"en": "kind", "zh": "类别"},
        "col_shared": {"en": "shared", "zh": "共有"},
        "col_what": {"en": "what", "zh": "项目"},
        "col_count": {"en": "count", "zh": "数量"},
        "col_members": {"en": "members", "zh": "成员数"},
        "col_entity": {"en": "entity", "zh": "实体"},
        "col_sim": {"en": "sim", "zh": "相似度"},
        "col_match": {"en": "match", "zh": "匹配"},
        "col_ilike_term": {"en": "ilike term", "zh": "ilike 项"},
        "col_sim_term": {"en": "sim term", "zh": "相似度项"},
        "col_occurrence_term": {"en": "occurrence term", "zh": "出现次数项"},
        "col_occurrence": {"en": "occurrence", "zh": "出现次数"},
        "col_aliases": {"en": "aliases", "zh": "别名"},
        "col_degree": {"en": "degree", "zh": "度"},
        "col_entities": {"en": "entities", "zh": "实体数"},
        "col_value": {"en": "value", "zh": "值"},
        "timing_part": {"en": "{stage}: {ms} ms", "zh": "{stage}：{ms} 毫秒"},
        "stage_keywords": {"en": "keywords", "zh": "关键词"},
        "stage_embed": {"en": "embed", "zh": "嵌入"},
        "stage_context": {"en": "context", "zh": "上下文"},
        "run_line": {
            "en": "run: {mode} · {params} · {ms} ms · in the context: {kept}",
            "zh": "本次运行：{mode} · {params} · {ms} 毫秒 · 进入上下文：{kept}",
        },
        "kept_part": {"en": "{n} {kind}", "zh": "{kind} {n}"},
        "keywords_line": {
            "en": "keywords ({source}): hl = {hl} · ll = {ll}",
            "zh": "关键词（{source}）：hl = {hl} · ll = {ll}",
        },
        "kw_source_offline": {"en": "offline", "zh": "离线"},
        "kw_source_llm": {"en": "llm", "zh": "大模型"},
        "kw_source_user": {"en": "user", "zh": "手动给出"},
        "kw_source_cache": {"en": "cache", "zh": "缓存"},
        "answer_caption": {
            "en": "{model}{hit} · {prompt} prompt + {answer} answer tokens · cost {cost}",
            "zh": "{model}{hit} · 提示 {prompt} + 回答 {answer} 个 token · 费用 {cost}",
        },
        "cache_hit": {"en": " · cache hit", "zh": " · 命中缓存"},
        "cost_unknown": {"en": "unknown", "zh": "未知"},
        "part_used": {"en": "used", "zh": "已用"},
        "part_headroom": {"en": "headroom", "zh": "剩余"},
        "side_error": {"en": "{side}: {error}", "zh": "{side}：{error}"},
        "engine_pick": {"en": "Vector search", "zh": "向量检索"},
        "engine_help": {
            "en": "This index's vectors are also on a chroma server. local: exact search on this machine (the "
            "default). server: the chroma server searches (approximate HNSW, no vectors loaded here); its top-k is "
            "compared with the exact search when the local copy exists. Same as the CLI's --vectors.",
            "zh": "此索引的向量也保存在 chroma 服务器上。local：在本机精确检索（默认）。server：由 chroma 服务器检索"
            "（近似的 HNSW，本机不加载向量）；本地副本存在时会把其 top-k 与精确检索对比。与命令行的 --vectors 相同。",
        },
        "vector_engine_line": {
            "en": "Vectors searched by chroma HNSW on {where}.",
            "zh": "向量由 {where} 上的 chroma HNSW 检索。",
        },
        "vector_overlap": {
            "en": "{kind}: server top-{k} ∩ exact top-{k}: {both}/{n}",
            "zh": "{kind}：服务器 top-{k} ∩ 精确 top-{k}：{both}/{n}",
        },
        "vector_overlap_none": {
            "en": "No local copy of the vectors: the server's top-k cannot be compared with the exact search.",
            "zh": "本机没有向量副本：无法把服务器的 top-k 与精确检索对比。",
        },
    }
)


def t(key: str, lang: str = "en", **fmt: object) -> str:
    entry = _STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang) or entry["en"]
    return text.format(**fmt) if fmt else text


def catalogue(lang: str) -> dict[str, str]:
    """Key -> template of the app's own strings in ``lang`` (the test checks en and zh are key-equal)."""
    return {key: entry[lang] for key, entry in _STRINGS.items() if lang in entry}


_FIELD = re.compile(r"\{(\w+)(?:[:!][^}]*)?\}")


def fields(template: str) -> set[str]:
    """The placeholder names of a template (``{n:,}`` -> ``n``)."""
    return set(_FIELD.findall(template))


def template_pattern(template: str) -> re.Pattern[str]:
    """A regex matching every text the template can produce; each placeholder is a named group."""
    parts, seen, pos = [], set(), 0
    for m in _FIELD.finditer(template):
        parts.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    return re.compile("".join(parts) + r"\Z", re.S)


@functools.cache
def _message_patterns() -> list[tuple[re.Pattern[str], str]]:
    """(English pattern, Chinese template) for parameterised messages, most literal text first."""
    templated = [(en, zh) for en, zh in ZH_TEXTS.items() if fields(en)]
    templated.sort(key=lambda pair: -len(_FIELD.sub("", pair[0])))
    return [(template_pattern(en), zh) for en, zh in templated]


def tr(text: str, lang: str = "en") -> str:
    """A package message in ``lang``: its Chinese template filled with the English message's values.

    Values are translated too when they are messages themselves; unknown text stays English."""
    if lang == "en" or not text:
        return text
    return _translate(text)[0]


_ENGLISH_PHRASE = re.compile(r"[A-Za-z]{2,}[^A-Za-z]+[A-Za-z]{2,}")


@functools.lru_cache(maxsize=65536)
def _translate(text: str) -> tuple[str, bool]:
    """(Chinese, whether no English phrase is left untranslated) for one package text.

    A template's placeholders match lazily, so a text built from parts (``local #3 ({why})`` holding
    ``…; tied with …``) may match several templates; the first one whose values all translate wins,
    else the first that matched, else the parts joined with "; " (longest head first)."""
    exact = ZH_TEXTS.get(text)
    if exact is not None:
        return exact, True
    partial = None
    for pattern, zh in _message_patterns():
        match = pattern.match(text)
        if match:
            out, ok = _fill(zh, match.groupdict())
            if ok:
                return out, True
            partial = partial or out
    error = _user_error_text(text)
    if error is not None and error[1]:
        return error
    partial = partial or (error[0] if error else None)
    cut = text.rfind("; ")
    while cut > 0:  # parts the package joined with "; "
        (head, head_ok), (tail, tail_ok) = _translate(text[:cut]), _translate(text[cut + 2 :])
        if head_ok and tail_ok:
            return head + "；" + tail, True
        if partial is None and (head != text[:cut] or tail != text[cut + 2 :]):
            partial = head + "；" + tail
        cut = text.rfind("; ", 0, cut)
    if partial is not None:
        return partial, False
    return text, not _ENGLISH_PHRASE.search(text)  # a number, a name or one reference word needs none


def _user_error_text(text: str) -> tuple[str, bool] | None:
    """``where: what — fix`` as ``str(UserError)`` writes it (a model error carried as text): what and
    fix translated, where kept. The first split whose parts all translate, else the first that changed
    something (a provider's own words inside stay English), else None."""
    head, sep, fix = text.partition(" — ")
    fix_zh, fix_ok = _translate(fix) if sep else (fix, False)
    if fix_zh == fix:
        return None
    first = None
    candidates = [("", head)]  # no where: the whole head is the what
    cut = head.find(": ")
    while cut > 0 and "; " not in head[:cut]:  # a where is one path or name, never joined notes
        candidates.append((head[:cut] + ": ", head[cut + 2 :]))
        cut = head.find(": ", cut + 1)
    for where, what in candidates:
        what_zh, ok = _translate(what)
        if what_zh != what:
            if ok and fix_ok:
                return f"{where}{what_zh} — {fix_zh}", True
            first = first or f"{where}{what_zh} — {fix_zh}"
    return (first, False) if first else None


def _fill(template: str, values: dict[str, str]) -> tuple[str, bool]:
    done = {name: (value, True) if name in _DATA_FIELDS else _translate(value) for name, value in values.items()}
    return _FIELD.sub(lambda m: done[m.group(1)][0], template), all(ok for _, ok in done.values())


def error_text(exc: Exception, lang: str) -> str:
    """A ``UserError`` in ``lang``: what and fix translated, where (a path or a name) kept as is."""
    from graphrag_ui.errors import UserError

    if lang == "en" or not isinstance(exc, UserError):
        return str(exc)
    what, fix = tr(exc.what, lang), tr(exc.fix, lang)
    head = what if not exc.where else f"{exc.where}: {what}"
    return f"{head} — {fix}" if fix else head
