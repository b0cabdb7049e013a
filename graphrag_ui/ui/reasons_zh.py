"""Chinese for the reasons every recalled and dropped item carries (``Candidate.why``/``dropped``,
map-reduce points, dynamic-selection ratings, batch outcomes).

Keyed by the English template exactly as ``graphrag_ui/retrieval/*`` writes it; ``i18n.tr`` merges
this table with ``messages_zh.MESSAGES``. A reason the retrieval layer assembles from parts (joined
by "; ", or one reason inside another, e.g. ``local #3 ({why})``) has a template per part, and each
value is translated in turn. Values named ``name``, ``names``, ``pair``, ``cid`` or ``raw`` are index
data (entity names, community ids, a stored rating) and stay verbatim. Reference parameter names
(top_k, max_entity_tokens, …), the reference's section names (Reports, Sources, …) and its method
names (VECTOR, WEIGHT, ILIKE) stay as the references spell them.
"""

from __future__ import annotations

# vector, ILIKE and hybrid recall (recall.py, nano_recall.py)
_RECALL = {
    "entity #{rank} by vector, sim {sim}": "实体 #{rank}（向量检索），相似度 {sim}",
    "entity #{rank} by {strategy}: {why}": "实体 #{rank}（{strategy}）：{why}",
    "vector candidate #{rank}, sim {sim}": "向量候选 #{rank}，相似度 {sim}",
    "beyond top_k ({rank} > {top_k})": "超出 top_k（第 {rank} 个 > {top_k}）",
    "below threshold (sim {sim} < {threshold})": "低于阈值（相似度 {sim} < {threshold}）",
    "after the first score below threshold (nano-vectordb stops there)": (
        "排在第一个低于阈值的分数之后（nano-vectordb 在那里停止）"
    ),
    "tied with {names} (equal similarity: the order among them is the reference's argsort order)": (
        "与 {names} 并列（相似度相同：它们之间的先后是参考实现 argsort 给出的顺序）"
    ),
    "tied with the chunks of {names} (equal similarity: LightRAG orders them by a Python set)": (
        "与 {names} 的文本块并列（相似度相同：LightRAG 按 Python 集合的顺序排列它们）"
    ),
    "ILIKE name match": "ILIKE 名称匹配",
    "ILIKE alias match": "ILIKE 别名匹配",
    "ILIKE name in query match": "ILIKE 匹配：名称出现在问题中",
    "ILIKE alias in query match": "ILIKE 匹配：别名出现在问题中",
    "{w_ilike}·1 + {w_occ}·log({occurrence}+1) = {score}": "{w_ilike}·1 + {w_occ}·log({occurrence}+1) = {score}",
    "{w_sim}·sim + {w_occ}·log({occurrence}+1) = {score}": "{w_sim}·sim + {w_occ}·log({occurrence}+1) = {score}",
    "also vector sim {sim} (+{w_sim}·sim) = {score}": "另有向量相似度 {sim}（+{w_sim}·sim）= {score}",
    "vector sim {sim} (ILIKE found {n} < {top_k})": "向量相似度 {sim}（ILIKE 只找到 {n} 个 < {top_k}）",
    "by chroma HNSW on {where}": "由 {where} 上的 chroma HNSW 检索",  # vector_engine.mark (--vectors server)
}

# LightRAG 1.4.7 / 1.5.7 (lightrag_search.py, lightrag_chunks.py, lightrag_explain.py, lightrag*_modes.py)
_LIGHTRAG = {
    "local #{n} ({why})": "local #{n}（{why}）",
    "local #{n}: {why}, edge degree {degree}, weight {weight}": "local #{n}：{why}，边的度 {degree}，权重 {weight}",
    "edge of {name}": "{name} 的边",
    "global #{n} (relation vdb sim {sim})": "global #{n}（关系向量库相似度 {sim}）",
    "global #{n} via relation {pair}": "global #{n}，经由关系 {pair}",
    "round-robin: duplicate of local #{n}": "轮流合并：与 local #{n} 重复",
    "round-robin: duplicate of global #{n}": "轮流合并：与 global #{n} 重复",
    "round-robin: duplicate of entity chunk": "轮流合并：与实体的文本块重复",
    "round-robin: duplicate of relation chunk": "轮流合并：与关系的文本块重复",
    "round-robin: duplicate of vector chunk": "轮流合并：与向量检索的文本块重复",
    "beyond chunk_top_k {top}": "超出 chunk_top_k {top}",
    "over chunk budget {limit} tokens ({running})": "超出文本块预算 {limit} token（累计 {running}）",
    "over chunk budget {limit} tokens (cut before chunk #{n})": "超出文本块预算 {limit} token（在第 #{n} 个文本块之前截断）",
    "over max_entity_tokens {limit} ({running})": "超出 max_entity_tokens {limit}（累计 {running}）",
    "over max_relation_tokens {limit} ({running})": "超出 max_relation_tokens {limit}（累计 {running}）",
    "entity": "实体",
    "relation": "关系",
    "vector": "向量",
    "candidate of entity chunks": "实体文本块的候选",
    "candidate of relation chunks": "关系文本块的候选",
    "candidate of vector chunks": "向量检索文本块的候选",
    "not picked": "未选中",
    "not picked: beyond VECTOR quota {n}": "未选中：超出 VECTOR 配额 {n}",
    "not picked: beyond VECTOR quota {n} (sim {sim})": "未选中：超出 VECTOR 配额 {n}（相似度 {sim}）",
    "not picked: beyond WEIGHT polling quota": "未选中：超出 WEIGHT 轮询配额",
    "chunk of entity {name} (VECTOR #{rank} of {n}, sim {sim})": "实体 {name} 的文本块（VECTOR 第 #{rank} 个，共 {n} 个，相似度 {sim}）",
    "chunk of relation {name} (VECTOR #{rank} of {n}, sim {sim})": (
        "关系 {name} 的文本块（VECTOR 第 #{rank} 个，共 {n} 个，相似度 {sim}）"
    ),
    "chunk of entity {name} (WEIGHT polling #{rank}, {count} occurrences)": (
        "实体 {name} 的文本块（WEIGHT 轮询第 #{rank} 个，出现 {count} 次）"
    ),
    "chunk of relation {name} (WEIGHT polling #{rank}, {count} occurrences)": (
        "关系 {name} 的文本块（WEIGHT 轮询第 #{rank} 个，出现 {count} 次）"
    ),
    "missing from the chunk store": "文本块存储中没有它",
    "vector chunk #{rank} sim {sim}": "向量检索文本块 #{rank}，相似度 {sim}",
    "reference [{rid}]": "引用 [{rid}]",
    "no reference (unknown file path)": "无引用（文件路径未知）",
    "no entity or relation left: LightRAG 1.4.7 returns no context": "没有剩下实体或关系：LightRAG 1.4.7 不返回上下文",
}

# nano-graphrag 0.0.8.2 local, global and naive (nano_local.py, nano_global.py, nano_naive.py, …)
_NANO = {
    "over budget (section Reports: {running}/{limit} tokens)": "超出预算（Reports 部分：{running}/{limit} token）",
    "over budget (section Relationships: {running}/{limit} tokens)": (
        "超出预算（Relationships 部分：{running}/{limit} token）"
    ),
    "over budget (section Sources: {running}/{limit} tokens)": "超出预算（Sources 部分：{running}/{limit} token）",
    "single-community switch kept only the first": "单社区开关只保留了第一个",
    "{n} of the recalled entities are in it, rating {rating}, level {level}": (
        "召回的实体中有 {n} 个在其中，评分 {rating}，层级 {level}"
    ),
    "{n} of the recalled entities are in it, level {level}": "召回的实体中有 {n} 个在其中，层级 {level}",
    "level {level} > level {limit}": "层级 {level} > level {limit}",
    "source of entity #{n} {name}, {count} supporting relations": "实体 #{n} {name} 的来源，{count} 条支持关系",
    "edge degree {degree}, weight {weight}, touches entity #{n} {name}": "边的度 {degree}，权重 {weight}，连接实体 #{n} {name}",
    "{why}, degree {degree}": "{why}，度 {degree}",
    "level {level}": "层级 {level}",
    "level {level}, schema occurrence {occurrence}": "层级 {level}，图模式中的出现次数 {occurrence}",
    "#{n} by schema occurrence, beyond global_max_consider_community ({cap})": (
        "按图模式中的出现次数排第 #{n}，超出 global_max_consider_community（{cap}）"
    ),
    "no community report is stored for this cluster": "这个聚类没有存储社区报告",
    "level {level}, occurrence {occurrence}": "层级 {level}，出现次数 {occurrence}",
    "rating {rating} < global_min_community_rating {limit}": "评分 {rating} < global_min_community_rating {limit}",
    "level {level}, occurrence {occurrence}, rating {rating}: #{n} by (occurrence, rating), batch {batch} row {row}": (
        "层级 {level}，出现次数 {occurrence}，评分 {rating}：按（出现次数，评分）排第 #{n}，第 {batch} 批第 {row} 行"
    ),
    "its report alone is {tokens} tokens > global_max_token_for_community_report {limit}: nano-graphrag 0.0.8.2 "
    "loops forever here; left out": (
        "它的报告单独就有 {tokens} token > global_max_token_for_community_report {limit}："
        "nano-graphrag 0.0.8.2 在这里会无限循环；因此略去"
    ),
    "rating {raw} is not a number: counted as 0 (nano-graphrag 0.0.8.2 raises TypeError)": (
        "评分 {raw} 不是数字：按 0 计（nano-graphrag 0.0.8.2 会抛出 TypeError）"
    ),
    "chunk #{n} by vector, sim {sim}": "文本块 #{n}（向量检索），相似度 {sim}",
    "over budget (naive_max_token_for_text_unit: {running}/{limit} tokens)": (
        "超出预算（naive_max_token_for_text_unit：{running}/{limit} token）"
    ),
}

# Microsoft GraphRAG local, basic and global (ms_local*.py, ms_basic.py, ms_global*.py)
_MS = {
    "entity #{n} by vector (LanceDB L2 {distance}), score {score}": "实体 #{n}（向量检索，LanceDB L2 {distance}），分数 {score}",
    "text unit #{n} by vector (LanceDB L2 {distance}), score {score}": (
        "文本单元 #{n}（向量检索，LanceDB L2 {distance}），分数 {score}"
    ),
    "empty query: top {k} entities by degree ({degree})": "问题为空：按度取前 {k} 个实体（度 {degree}）",
    "not loaded at community_level {level} (in no community of level ≤ {level}): GraphRAG skips it": (
        "在 community_level {level} 下没有加载（不属于任何层级 ≤ {level} 的社区）：GraphRAG 跳过它"
    ),
    "vector id names no entity: GraphRAG skips it": "向量 id 找不到对应的实体：GraphRAG 跳过它",
    "no community report at level ≤ {level}": "没有层级 ≤ {level} 的社区报告",
    "matched by {n} selected entities, rating {rating}": "被 {n} 个选中的实体匹配，评分 {rating}",
    "below threshold (rating {rating} < min_community_rank {limit})": "低于阈值（评分 {rating} < min_community_rank {limit}）",
    "over budget (Reports: {used}+{tokens} > {limit} tokens)": "超出预算（Reports：{used}+{tokens} > {limit} token）",
    "over budget (Entities: {used}+{tokens} > {limit} tokens)": "超出预算（Entities：{used}+{tokens} > {limit} token）",
    "over budget (Sources: {used}+{tokens} > {limit} tokens)": "超出预算（Sources：{used}+{tokens} > {limit} token）",
    "over budget (Relationships: {used} used, next row does not fit in {limit})": (
        "超出预算（Relationships：已用 {used}，下一行放不进 {limit}）"
    ),
    "beyond top_k (out-network cap top_k_relationships×{n} = {cap})": (
        "超出 top_k（网络外关系的上限 top_k_relationships×{n} = {cap}）"
    ),
    "in-network": "网络内（两端实体都已选中）",
    "out-network": "网络外（只有一端实体被选中）",
    "reverted (its entity's relationships did not fit the local budget)": "已撤回（其实体的关系放不进 local 上下文预算）",
    "text unit of {name} (entity #{n}), {count} of its relationships": "{name}（实体 #{n}）的文本单元，含其 {count} 条关系",
    "report at level {level}, rating {rating}, occurrence weight {weight}; batch {batch}": (
        "层级 {level} 的报告，评分 {rating}，出现次数权重 {weight}；第 {batch} 批"
    ),
    "report at level {level}, rating {rating}; batch {batch}": "层级 {level} 的报告，评分 {rating}；第 {batch} 批",
    "below min_community_rank {limit} (rating {rating})": "低于 min_community_rank {limit}（评分 {rating}）",
}

# map-reduce points, dynamic-selection ratings and batch outcomes (ms_global_*.py, nano_map_reduce.py,
# ms_global_select.py, ui/stage_tables.py)
_STAGES = {
    "score 0 (the analyst found nothing relevant)": "分数 0（分析员没有找到相关内容）",
    "score {score}": "分数 {score}",
    "over the reduce budget (data_max_tokens {limit}: {used} used, this point {tokens})": (
        "超出归约预算（data_max_tokens {limit}：已用 {used}，本要点 {tokens}）"
    ),
    "score {score}, #{n} of {count} scored points": "分数 {score}，在 {count} 个有分数的要点中排第 #{n}",
    "score {score} (nano keeps only scores above 0)": "分数 {score}（nano 只保留大于 0 的分数）",
    "#{n} by score, over the reduce budget ({running}/{limit} tokens, global_max_token_for_community_report)": (
        "按分数排第 #{n}，超出归约预算（{running}/{limit} token，global_max_token_for_community_report）"
    ),
    "score {score}, #{n} of {count} points above 0, from analyst {batch}": (
        "分数 {score}，在 {count} 个大于 0 的要点中排第 #{n}，来自分析员 {batch}"
    ),
    "not in the reduce context": "不在归约上下文中",
    "rated {rating} ≥ threshold {threshold}: kept": "评分 {rating} ≥ 阈值 {threshold}：保留",
    "rated {rating} ≥ threshold {threshold}: kept, its {n} children with reports rated next": (
        "评分 {rating} ≥ 阈值 {threshold}：保留，接下来为它的 {n} 个有报告的子社区评分"
    ),
    "rated {rating} < threshold {threshold}: pruned with everything below it": (
        "评分 {rating} < 阈值 {threshold}：连同其下的所有社区一起剪除"
    ),
    "nothing kept yet, so every level-{level} report is rated next": "尚未保留任何报告，因此接下来为层级 {level} 的每个报告评分",
    "dropped again because its child {cid} was kept (dynamic_search_keep_parent off)": (
        "因其子社区 {cid} 被保留而再次丢弃（dynamic_search_keep_parent 关闭）"
    ),
    "ok": "成功",
    "cached": "来自缓存",
}

REASONS: dict[str, str] = {**_RECALL, **_LIGHTRAG, **_NANO, **_MS, **_STAGES}
