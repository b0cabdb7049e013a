"""Chinese for the messages the package writes in English (warnings, errors, mode summaries, parameter help).

Keyed by the English text exactly as the package writes it; ``{name}`` marks a value, which is carried
over (and translated too when it is a message itself). A message that changes in English without
changing here simply shows in English: the zh catalogue test renders the pages and reports it.
Reference parameter and field names (top_k, query_better_than_threshold, …) stay as they are.
"""

from __future__ import annotations

from graphrag_ui.ui.messages_zh_index import INDEX_MESSAGES
from graphrag_ui.ui.messages_zh_query import QUERY_MESSAGES

_MODE_SUMMARIES = {
    "nano-graphrag 0.0.8.2 local: entities by vector → their communities, source chunks and edges → four CSV tables.": (
        "nano-graphrag 0.0.8.2 local：按向量检索实体 → 其社区、来源文本块与边 → 四个 CSV 表。"
    ),
    "entities found by the low-level keywords, all their relations (by edge degree), their chunks": (
        "由低层关键词找到的实体、它们的全部关系（按边的度排序）及其文本块"
    ),
    "relations found by the high-level keywords, their endpoint entities, their chunks": (
        "由高层关键词找到的关系、关系两端的实体及其文本块"
    ),
    "local and global results merged round-robin, then chunks of both": "local 与 global 的结果轮流合并，再加两者的文本块",
    "hybrid plus chunks found by vector search on the question, merged round-robin": (
        "hybrid 的结果，加上对问题做向量检索找到的文本块，轮流合并"
    ),
    "chunks found by vector search on the question, within the token budget": "对问题做向量检索找到的文本块，受 token 预算限制",
    "Microsoft GraphRAG local search: entity vector search → community reports, entities and relationships, source "
    "text units, each within its share of the token budget.": (
        "Microsoft GraphRAG local 检索：实体向量检索 → 社区报告、实体与关系、来源文本单元，各自受其 token 预算份额限制。"
    ),
    "Microsoft GraphRAG basic search: the k text units nearest the question, as one table within the token budget.": (
        "Microsoft GraphRAG basic 检索：与问题最接近的 k 个文本单元，在 token 预算内组成一张表。"
    ),
    "Microsoft GraphRAG global search: community reports in shuffled batches, one map call per batch for scored "
    "points, the best points reduced into the answer.": (
        "Microsoft GraphRAG global 检索：社区报告打乱后分批，每批一次映射调用得到带分数的要点，最好的要点归约成回答。"
    ),
    "nano-graphrag 0.0.8.2 global: community reports by occurrence and rating → batches → map (key points per batch) "
    "→ reduce (analyst points) → answer.": (
        "nano-graphrag 0.0.8.2 global：按出现次数与评分选社区报告 → 分批 → 映射（每批的要点）→ 归约（分析员要点）→ 回答。"
    ),
    "nano-graphrag 0.0.8.2 naive: chunks by vector search within a token budget, joined as excerpts.": (
        "nano-graphrag 0.0.8.2 naive：在 token 预算内按向量检索文本块，拼接为摘录。"
    ),
    "no retrieval: the bare question goes to the model (LightRAG's bypass mode)": (
        "不检索：问题原样交给模型（LightRAG 的 bypass 模式）"
    ),
    "rerank is off (enable_rerank=False: no rerank model runs offline)": (
        "重排已关闭（enable_rerank=False：离线时不运行重排模型）"
    ),
    "{summary} Rerank is off (enable_rerank=False: no rerank model runs offline).": (
        "{summary} 重排已关闭（enable_rerank=False：离线时不运行重排模型）。"
    ),
}

_PARAM_HELP = {
    "Token budget of the reduce context (the analysts' points).": "归约上下文的 token 预算（分析员的要点）。",
    "Add the occurrence weight column (sorts batches).": "加入出现次数权重列（用于批次排序）。",
    "Add the report rating as the rank column (sorts batches).": "把报告评分作为 rank 列加入（用于批次排序）。",
    "Answer shape requested in the reduce prompt.": "归约提示词中要求的回答形式。",
    "Context budget (cl100k_base tokens).": "上下文预算（cl100k_base token）。",
    "Cosine similarity a chunk must reach; the search stops at the first one below.": (
        "文本块必须达到的余弦相似度；检索在第一个低于它的文本块处停止。"
    ),
    "Divide occurrence weights by the largest one.": "把出现次数权重除以其中的最大值。",
    "Dynamic selection: deepest level rated when nothing is kept.": "动态选择：什么都没保留时评分到的最深层级。",
    "Dynamic selection: keep a parent whose child is kept.": "动态选择：子社区被保留时也保留其父社区。",
    "Dynamic selection: keep reports rated at least this (0-5).": "动态选择：保留评分不低于此值的报告（0-5）。",
    "Dynamic selection: rate report summaries, not full content.": "动态选择：对报告摘要而不是完整内容评分。",
    "Dynamic selection: ratings per report (majority vote).": "动态选择：每份报告的评分次数（多数表决）。",
    "How many chunks the vector search returns (nano QueryParam.top_k).": "向量检索返回的文本块数（nano QueryParam.top_k）。",
    "How many communities (the highest occurrence first) are considered at all.": (
        "最多考虑多少个社区（出现次数最高的优先）。"
    ),
    "Leave out communities whose report rating is below this.": "排除报告评分低于此值的社区。",
    "Let the model rate reports top-down and keep only relevant ones (CLI --dynamic-community-selection).": (
        "让模型自上而下为报告评分，只保留相关的报告（CLI --dynamic-community-selection）。"
    ),
    "Reports at this community level or above (CLI --community-level).": "此社区层级或更高层级的报告（CLI --community-level）。",
    "Seed of the shuffle.": "打乱顺序所用的随机种子。",
    "Shuffle reports before batching (Python random, seeded).": "分批前打乱报告顺序（Python random，带种子）。",
    "Text units to fetch by vector search (no threshold).": "按向量检索取回的文本单元数（无阈值）。",
    "Token budget of each map batch (cl100k_base).": "每个映射批次的 token 预算（cl100k_base）。",
    "Token budget of one map batch (report text only), and of the analyst points in the reduce context.": (
        "单个映射批次的 token 预算（仅计报告正文），也是归约上下文中分析员要点的预算。"
    ),
    "Token budget of the chunk texts (a prefix cut: the chunk that crosses it and all after are left out).": (
        "文本块正文的 token 预算（前缀截断：越过预算的那个文本块及其后的全部被舍弃）。"
    ),
    "Use report summaries instead of their full content.": "使用报告摘要而不是完整内容。",
    "Word limit the map prompt asks for.": "映射提示词要求的字数上限。",
    "Word limit the reduce prompt asks for.": "归约提示词要求的字数上限。",
    "How many entities the vector search returns (nano QueryParam.top_k).": "向量检索返回的实体数（nano QueryParam.top_k）。",
    "Use communities at this level or coarser (level <= this; 0 is the root partition).": (
        "使用此层级及更粗层级的社区（level <= 此值；0 为根划分）。"
    ),
    "Token budget of the Sources section (chunk text only).": "Sources 部分的 token 预算（仅计文本块正文）。",
    "Token budget of the Relationships section (descriptions only).": "Relationships 部分的 token 预算（仅计描述）。",
    "Token budget of the Reports section (report text only).": "Reports 部分的 token 预算（仅计报告正文）。",
    "Keep only the best community report (applied after the budget cut).": "只保留最好的一份社区报告（在预算截断之后应用）。",
    "Cosine similarity an entity must reach; the search stops at the first one below.": (
        "实体必须达到的余弦相似度；检索在第一个低于它的实体处停止。"
    ),
    "Answer shape requested in the answer prompt.": "回答提示词中要求的回答形式。",
    "Entity recall: vector (nano), ilike (catalog) or hybrid (seed 003).": (
        "实体召回方式：vector（nano 的向量检索）、ilike（目录名称匹配）或 hybrid（seed 003）。"
    ),
    "Hybrid/ILIKE score weight of a name or alias match.": "hybrid/ILIKE 得分中名称或别名匹配的权重。",
    "Hybrid score weight of the vector similarity.": "hybrid 得分中向量相似度的权重。",
    "Hybrid score weight of log(occurrence + 1).": "hybrid 得分中 log(occurrence + 1) 的权重。",
    "entities (local path) and relations (global path) taken from each vector search; naive: chunks when "
    "chunk_top_k is 0": "每次向量检索取的实体数（local 路径）和关系数（global 路径）；naive：chunk_top_k 为 0 时的文本块数",
    "chunks from the chunk vector search (mix, naive) and the cap on the final chunk list; 0 = no cap (search uses "
    "top_k)": "文本块向量检索（mix、naive）取的文本块数，也是最终文本块列表的上限；0 = 不设上限（检索用 top_k）",
    "token budget of the entity section (o200k_base, each entity's JSON counted)": (
        "实体部分的 token 预算（o200k_base，按每个实体的 JSON 计）"
    ),
    "token budget of the relation section": "关系部分的 token 预算",
    "whole-prompt budget; chunks get what is left after system prompt, KG context, query and a 100-token buffer": (
        "整个提示词的预算；文本块得到系统提示词、知识图谱上下文、问题和 100 token 缓冲之后剩下的部分"
    ),
    "how chunks of entities/relations are picked: VECTOR (query similarity) or WEIGHT (linear-gradient polling)": (
        "如何挑选实体/关系的文本块：VECTOR（与问题的相似度）或 WEIGHT（线性梯度轮询）"
    ),
    "chunks per entity/relation: WEIGHT quota of the first one; VECTOR keeps int(n·items/2)": (
        "每个实体/关系的文本块数：WEIGHT 为第一个的配额；VECTOR 保留 int(n·items/2)"
    ),
    "vector hits scoring below this cosine are dropped (all three vector stores)": (
        "余弦相似度低于此值的向量命中被丢弃（三个向量库都是如此）"
    ),
    "answer format named in the system prompt (its tokens count against max_total_tokens)": (
        "系统提示词中指定的回答格式（其 token 计入 max_total_tokens）"
    ),
    "extra instruction for the answer (its tokens count against max_total_tokens)": (
        "对回答的附加要求（其 token 计入 max_total_tokens）"
    ),
    "Entity recall: vector (LightRAG's own, on the local path), ilike (name match) or hybrid (seed 003).": (
        "实体召回方式：vector（LightRAG 自身的，用于 local 路径）、ilike（名称匹配）或 hybrid（seed 003）。"
    ),
    "Entities to map the query to; LanceDB returns 2× this many (no threshold).": (
        "问题映射到的实体数；LanceDB 返回 2 倍于此的数量（无阈值）。"
    ),
    "Out-network relationships kept per selected entity (in-network ones are never capped).": (
        "每个选中实体保留的网络外关系数（网络内的关系从不设上限）。"
    ),
    "Total context budget (cl100k_base tokens), split by the two props below.": (
        "上下文总预算（cl100k_base token），按下面两个比例分配。"
    ),
    "Share of max_context_tokens for the Sources (text unit) table.": "Sources（文本单元）表占 max_context_tokens 的比例。",
    "Share of max_context_tokens for community reports; the local tables get the rest.": (
        "社区报告占 max_context_tokens 的比例；其余归 local 各表。"
    ),
    "Entities and reports at this community level or above (CLI --community-level).": (
        "此社区层级或更高层级的实体与报告（CLI --community-level）。"
    ),
    "Add the 'number of relationships' (degree) column to the Entities table.": (
        "在 Entities 表中加入 'number of relationships'（度）列。"
    ),
    "Add the weight column to the Relationships table.": "在 Relationships 表中加入 weight 列。",
    "Add the report rating as a rank column (GraphRAG then re-sorts by it).": (
        "把报告评分作为 rank 列加入（GraphRAG 随后按它重新排序）。"
    ),
    "Use the report summary instead of its full content.": "使用报告摘要而不是完整内容。",
    "Skip reports rated below this.": "跳过评分低于此值的报告。",
    "Entity recall: LanceDB vector search (GraphRAG), ILIKE on names, or hybrid (seed 003).": (
        "实体召回方式：LanceDB 向量检索（GraphRAG）、名称 ILIKE 匹配，或 hybrid（seed 003）。"
    ),
}

_WARNINGS = {
    "bypass: LightRAG {version} retrieves nothing in this mode; the question goes to the model as it is, with no "
    "context and no system prompt": "bypass：LightRAG {version} 在此模式下不检索；问题原样交给模型，没有上下文，也没有系统提示词",
    "{source} chunks: VECTOR picked nothing ({why_not}); used WEIGHT": (
        "{source} 的文本块：VECTOR 什么也没选中（{why_not}）；改用 WEIGHT"
    ),
    "quota {n}": "配额 {n}",
    "no candidate chunk": "没有候选文本块",
    "the query vector is all zeros, so no cosine similarity is defined": "查询向量全为零，余弦相似度没有定义",
    "chunk {cid} has no vector of the query's dimension": "文本块 {cid} 没有与查询同维度的向量",
    "chunk {cid}'s vector is all zeros, so its cosine similarity is undefined": "文本块 {cid} 的向量全为零，其余弦相似度没有定义",
    "cluster {cid} has no community report: skipped (nano-graphrag 0.0.8.2 raises KeyError)": (
        "聚类 {cid} 没有社区报告：已跳过（nano-graphrag 0.0.8.2 在此抛出 KeyError）"
    ),
    "chunk {cid} cited by {name} is not stored: skipped": "{name} 引用的文本块 {cid} 不在索引中：已跳过",
    "no entity scored above query_better_than_threshold: nano-graphrag returns None here and answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the LLM': (
        "没有实体的得分高于 query_better_than_threshold：nano-graphrag 在此返回 None，不调用大模型，直接回答 "
        '"Sorry, I\'m not able to provide an answer to that question."'
    ),
    "the index has no entities": "该索引没有实体",
    "the index has no entity vectors: the entity search found nothing": "该索引没有实体向量：实体检索什么也没找到",
    "community_prop {cp} + text_unit_prop {tp} exceeds 1 (GraphRAG refuses this): community_prop lowered to {low} "
    "so the text units keep their share": (
        "community_prop {cp} + text_unit_prop {tp} 超过 1（GraphRAG 会拒绝）：community_prop 已降为 {low}，"
        "以保住文本单元的份额"
    ),
    "no entity was mapped to the query: the context has no entity-based sections": (
        "没有实体映射到问题：上下文中没有基于实体的部分"
    ),
    "the {section} budget ({limit} tokens) is smaller than its header ({used} tokens): GraphRAG prints the header "
    "with no rows": "{section} 的预算（{limit} 个 token）小于其表头（{used} 个 token）：GraphRAG 只输出表头，没有行",
    "the index has no entity vectors: vector recall found nothing": "该索引没有实体向量：向量召回什么也没找到",
    "vector row {row} ({id}) names no entity in the graph: skipped": "向量第 {row} 行（{id}）指向图中不存在的实体：已跳过",
    "this index has no {kind} vectors, so {what} finds nothing (re-embed the index to add them)": (
        "该索引没有 {kind} 向量，因此 {what} 什么也找不到（重新嵌入索引即可补上）"
    ),
    "naive: no chunk passed the cosine threshold, so there is no context ({label} answers with its fail response)": (
        "naive：没有文本块通过余弦阈值，因此没有上下文（{label} 会给出其失败回复）"
    ),
    "local mode without low-level keywords: {label} runs the global path on the high-level keywords instead": (
        "local 模式没有低层关键词：{label} 改为用高层关键词走 global 路径"
    ),
    "global mode without high-level keywords: {label} runs the local path on the low-level keywords instead": (
        "global 模式没有高层关键词：{label} 改为用低层关键词走 local 路径"
    ),
    "no entity or relation survived retrieval and truncation: no context (LightRAG answers with its fail response)": (
        "检索与截断之后没有留下任何实体或关系：没有上下文（LightRAG 会给出其失败回复）"
    ),
    "low-level keywords are empty: the local (entity) path finds nothing": "低层关键词为空：local（实体）路径什么也找不到",
    "high-level keywords are empty: the global (relation) path finds nothing": (
        "高层关键词为空：global（关系）路径什么也找不到"
    ),
    "both keyword lists are empty and the query is shorter than {n} characters: fell back to naive mode (seed 001; "
    "LightRAG {version} would search with the query as the only low-level keyword)": (
        "两个关键词列表都为空且问题短于 {n} 个字符：已退回 naive 模式（seed 001；LightRAG {version} 会把问题本身作为唯一的低层关键词检索）"
    ),
    "both keyword lists are empty and the query has {n}+ characters: no context (LightRAG answers with its fail "
    "response)": "两个关键词列表都为空且问题有 {n} 个以上字符：没有上下文（LightRAG 会给出其失败回复）",
    "the system prompt, KG context, query and buffer take {used} tokens, more than max_total_tokens {limit}: "
    "{label} does not cut them, it only leaves no room for chunks": (
        "系统提示词、知识图谱上下文、问题和缓冲共占 {used} 个 token，超过 max_total_tokens {limit}：{label} "
        "不会截断它们，只是不再给文本块留空间"
    ),
    "the index is empty (0 entities, 0 chunks): there is nothing to retrieve": (
        "索引是空的（0 个实体，0 个文本块）：没有可检索的内容"
    ),
    "the question has no words (only spaces, punctuation or symbols): name matching finds nothing and its embedding "
    "carries no meaning, so whatever is recalled is arbitrary": (
        "问题中没有词（只有空格、标点或符号）：名称匹配找不到任何内容，其嵌入也没有意义，因此召回的内容是随意的"
    ),
    "the question is {n} characters long: its embedding is an average over all of it, so recall by similarity is "
    "blurred; ask a shorter question": "问题长达 {n} 个字符：其嵌入是全文的平均，按相似度召回会变得模糊；请提一个更短的问题",
    "the question is written in {written}, which no entity name in this index uses: name matching cannot find "
    "anything, only the embedding can relate it to the index": (
        "问题使用的文字（{written}）在该索引的实体名称中从未出现：名称匹配找不到任何内容，只有嵌入能把它与索引联系起来"
    ),
    "mode {mode} does not use keywords: the given hl/ll keywords were ignored": (
        "模式 {mode} 不使用关键词：给出的 hl/ll 关键词已被忽略"
    ),
    "No language model is configured: keywords were extracted offline from the question and the index's entity "
    "names.": "未配置大模型：关键词是从问题和索引的实体名称中离线抽取的。",
    "Keyword extraction by the model failed ({error}); offline keywords were used instead.": (
        "模型抽取关键词失败（{error}）；已改用离线关键词。"
    ),
    "The model's keyword reply was not JSON ({preview}); offline keywords were used instead.": (
        "模型的关键词回复不是 JSON（{preview}）；已改用离线关键词。"
    ),
    "the chroma collection {name} on {where} was searched with ef_search {old}, below the {new} a top-{k} "
    "search asks for (max(100, 4·top_k)): it was raised now, and chroma applies it when the server next loads "
    "the collection (restart it to get the recall)": (
        "{where} 上的 chroma 集合 {name} 以 ef_search {old} 检索，低于 top-{k} 检索所需的 {new}（max(100, 4·top_k)）："
        "现已调高，chroma 会在服务器下次加载该集合时生效（重启服务器即可获得相应的召回率）"
    ),
}

_ERRORS = {
    "parameter {name} expects {type}, got {raw}": "参数 {name} 需要 {type} 类型，收到的是 {raw}",
    "parameter {name} must be one of {choices}, got {raw}": "参数 {name} 必须是 {choices} 之一，收到的是 {raw}",
    "parameter {name}={value} is below its minimum {min}": "参数 {name}={value} 低于其最小值 {min}",
    "parameter {name}={value} is above its maximum {max}": "参数 {name}={value} 高于其最大值 {max}",
    "give the new index a name (letters, digits, - or _)": "请为新索引起个名字（字母、数字、- 或 _）",
    "no documents uploaded": "没有上传文档",
    "add .txt or .md files": "请添加 .txt 或 .md 文件",
    "only .txt and .md documents are accepted": "只接受 .txt 和 .md 文档",
    "file is larger than {n} MB": "文件大于 {n} MB",
    "this looks like a binary file, not text": "这看起来是二进制文件，不是文本",
    "not UTF-8 text (byte {n})": "不是 UTF-8 文本（第 {n} 字节）",
    "save the file as UTF-8 and upload it again": "请把文件另存为 UTF-8 后重新上传",
    "the file is empty": "文件是空的",
    "LLM extraction needs a model": "用大模型抽取需要配置模型",
    "configure one on the Settings page, or use the offline extractor": "请在“设置”页配置模型，或使用离线抽取器",
    "the question must be text, got {kind}": "问题必须是文本，收到的是 {kind}",
    "unknown embedder {name}": "未知的嵌入模型 {name}",
    "{model} answered in {ms} ms ({reply}).": "{model} 在 {ms} 毫秒内作答（{reply}）。",
    "adding {name}'s relationships would make the local context {total} > {budget} tokens: reverted": (
        "加入 {name} 的关系会使 local 上下文达到 {total} > {budget} 个 token：已撤回"
    ),
    "use one of: use-m3, chroma-minilm, litellm:<model>, hash": "请使用以下之一：use-m3、chroma-minilm、litellm:<model>、hash",
    "cannot reach the chroma server at {where} ({detail})": "无法连接 {where} 上的 chroma 服务器（{detail}）",
    "start the server, or set CHROMA_HOST/CHROMA_PORT to where it runs": (
        "请启动该服务器，或把 CHROMA_HOST/CHROMA_PORT 设为它运行的地址"
    ),
    "this index keeps its vectors locally (chroma: {mode}), not on a chroma server": (
        "此索引的向量保存在本机（chroma：{mode}），不在 chroma 服务器上"
    ),
    "query with --vectors local, or re-save it with CHROMA_HOST/CHROMA_PORT set": (
        "请用 --vectors local 检索，或设置 CHROMA_HOST/CHROMA_PORT 后重新保存索引"
    ),
    "the chroma collection {name} is not on the server at {where} (the manifest says it holds {rows} vectors)": (
        "{where} 上的服务器没有 chroma 集合 {name}（清单记录它有 {rows} 个向量）"
    ),
    "the chroma collection {name} on {where} holds {n} vectors but the manifest says {rows}": (
        "{where} 上的 chroma 集合 {name} 有 {n} 个向量，但清单记录为 {rows}"
    ),
    "re-save the index with CHROMA_HOST/CHROMA_PORT set to this server, or query with --vectors local": (
        "请把 CHROMA_HOST/CHROMA_PORT 设为此服务器后重新保存索引，或用 --vectors local 检索"
    ),
    "the chroma collection {name} ({kind} vectors) is not on the server at {where}": (
        "{where} 上的服务器没有 chroma 集合 {name}（{kind} 向量）"
    ),
    "the chroma server at {where} did not answer the {kind} search ({detail}); nothing was searched locally instead": (
        "{where} 上的 chroma 服务器没有响应 {kind} 检索（{detail}）；也没有改为在本机检索"
    ),
    "start it (`chroma run --host {host} --port {port}`), point CHROMA_HOST/CHROMA_PORT at it, or query with "
    "--vectors local": (
        "请启动它（`chroma run --host {host} --port {port}`），把 CHROMA_HOST/CHROMA_PORT 指向它，或用 --vectors local 检索"
    ),
    "the chroma collection {name} on {where} returned id {vid}, which this index's ids file does not list": (
        "{where} 上的 chroma 集合 {name} 返回了 id {vid}，此索引的 id 文件中没有它"
    ),
    "the collection belongs to another save of the index: re-save it, or query with --vectors local": (
        "该集合属于此索引的另一次保存：请重新保存，或用 --vectors local 检索"
    ),
    "--vectors must be local or server, not {engine}": "--vectors 只能是 local 或 server，而不是 {engine}",
    "the ids file of the server's vectors is missing": "服务器上向量的 id 文件缺失",
}

# notes of map-reduce runs (ms.global, nano.global)
_STAGE_NOTES = {
    "{failed} of {n} map call(s) failed (first: batch {batch}: {error}); the reduce stage did not run, since an "
    "answer without those batches' reports would look complete but is not. Run again: answered batches come from "
    "the cache.": (
        "{n} 次映射调用中有 {failed} 次失败（第一个：批次 {batch}：{error}）；归约阶段没有运行，因为缺少这些批次报告的回答"
        "看似完整其实不完整。请再运行一次：已回答的批次会从缓存中取得。"
    ),
    "the map stage ran ({n} call(s)); the reduce call failed: {error}": "映射阶段已运行（{n} 次调用）；归约调用失败：{error}",
    "{n} map call(s) gave {points} point(s); {kept} reached the reduce context": (
        "{n} 次映射调用得到 {points} 个要点；{kept} 个进入归约上下文"
    ),
    "batch {label}'s map answer could not be read (the reference's fallback was used, as it does)": (
        "批次 {label} 的映射回答无法读取（按参考实现的做法使用了其后备值）"
    ),
    "the reduce call (the answer) was not made: context only": "没有进行归约调用（回答）：仅生成上下文",
    "{n} map batch(es) and their exact prompts are built; the map and reduce stages need a language model": (
        "{n} 个映射批次及其完整提示词已生成；映射与归约阶段需要语言模型"
    ),
    "{n} map batch(es) built with their exact prompts. The map stage (one model call per batch) and the reduce stage "
    "need a model: nothing was sent and no answer is shown.": (
        "已生成 {n} 个映射批次及其完整提示词。映射阶段（每批一次模型调用）与归约阶段需要模型：没有发送任何请求，也没有回答。"
    ),
    "no community report is left to map: nano-graphrag answers "
    '"Sorry, I\'m not able to provide an answer to that question." without calling the model': (
        "没有可映射的社区报告：nano-graphrag 不调用模型，直接回答 "
        '"Sorry, I\'m not able to provide an answer to that question."'
    ),
    "{n} map batch(es) and their exact prompts are ready; the map and reduce stages need a language model and none "
    "is configured, so no points, reduce context or answer exist — {help}": (
        "{n} 个映射批次及其完整提示词已准备好；映射与归约阶段需要语言模型，当前未配置，因此没有要点、归约上下文或回答 —— {help}"
    ),
    "set {env} (e.g. openai/gpt-4o-mini) and the provider's key, or see Settings": (
        "请设置 {env}（例如 openai/gpt-4o-mini）和服务商的密钥，或查看“设置”页"
    ),
}

# stages of build, import and re-embed, as their progress reports name them
_STAGES = {
    "read documents": "读取文档",
    "chunk": "切分文本块",
    "extract": "抽取实体与关系",
    "merge entities": "合并实体",
    "merge relations": "合并关系",
    "communities": "社区划分",
    "reports": "社区报告",
    "embed {kind}": "嵌入 {kind}",
    "entities": "实体",
    "relations": "关系",
    "chunks": "文本块",
    "save tables": "保存表格",
    "save vectors": "保存向量",
    "save catalog": "保存实体目录",
}

MESSAGES: dict[str, str] = {
    **_MODE_SUMMARIES,
    **_PARAM_HELP,
    **_WARNINGS,
    **_ERRORS,
    **_STAGE_NOTES,
    **_STAGES,
    **INDEX_MESSAGES,
    **QUERY_MESSAGES,
}
