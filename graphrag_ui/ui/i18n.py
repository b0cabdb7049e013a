"""UI strings in English and Simplified Chinese; ``t(key)`` falls back to English."""

from __future__ import annotations

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
    "keywords": {"en": "Keywords (LightRAG)", "zh": "关键词（LightRAG）"},
    "hl": {"en": "High-level keywords", "zh": "高层关键词"},
    "ll": {"en": "Low-level keywords", "zh": "低层关键词"},
    "keywords_help": {
        "en": "Comma-separated. Leave both empty to let the model (or the offline extractor) choose.",
        "zh": "用逗号分隔。都留空则由模型（或离线抽取器）生成。",
    },
    "answer": {"en": "Answer", "zh": "回答"},
    "ask": {"en": "Generate answer", "zh": "生成回答"},
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
}


def t(key: str, lang: str = "en", **fmt: object) -> str:
    entry = _STRINGS.get(key)
    if entry is None:
        return key
    text = entry.get(lang) or entry["en"]
    return text.format(**fmt) if fmt else text
