"""Token counts and estimated cost of a model call.

Counts come from the provider's ``usage`` when it sends one; otherwise they are estimated locally
with o200k_base (marked as an estimate). Cost comes from litellm's local price map only — the
package sets ``LITELLM_LOCAL_MODEL_COST_MAP`` so no price list is ever fetched.
"""

from __future__ import annotations

from functools import lru_cache

from graphrag_ui.base import tokens

# per-message framing tokens OpenAI chat models add (role markers); close enough for an estimate
_PER_MESSAGE = 4


def estimate_prompt_tokens(messages: list[dict[str, str]]) -> int:
    return sum(tokens.count(str(m.get("content", ""))) + _PER_MESSAGE for m in messages) + 2


def estimate_tokens(text: str) -> int:
    return tokens.count(text) if text else 0


@lru_cache(maxsize=64)
def _price(model: str) -> tuple[float, float] | None:
    """(input, output) USD per token from litellm's bundled map, or None for an unpriced model."""
    import litellm  # slow import: only when a cost is wanted

    for name in (model, model.split("/", 1)[-1]):
        try:
            p_in, p_out = litellm.cost_per_token(model=name, prompt_tokens=1_000_000, completion_tokens=1_000_000)
        except Exception:  # litellm raises its own "model isn't mapped" errors; unpriced is not a failure
            continue
        return p_in / 1_000_000, p_out / 1_000_000
    return None


def cost_usd(model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """Estimated cost in USD, or None when the model has no entry in the price map."""
    if not model or prompt_tokens is None:
        return None
    price = _price(model)
    if price is None:
        return None
    return prompt_tokens * price[0] + (completion_tokens or 0) * price[1]
