"""The evaluation's judge prompts (our own wording, versioned): answer correctness against a reference
answer, and faithfulness of an answer to the context it was given.

A judge reply is one JSON object with a ``verdict`` from a closed list and a one-sentence ``reason``;
anything else is *unreadable* and counted as such, never as a score. ``JUDGE_PROMPT_VERSION`` is part of
every cached judgement's key: editing a prompt means a new version, so an old verdict is never reused.
"""

from __future__ import annotations

import re

_FIELD = re.compile(r"\{(question|reference|answer|context)\}")

JUDGE_PROMPT_VERSION = "judge-1"

# verdict -> score
CORRECTNESS_VERDICTS = {"correct": 1.0, "partially correct": 0.5, "incorrect": 0.0}
FAITHFULNESS_VERDICTS = {"faithful": 1.0, "partly faithful": 0.5, "unfaithful": 0.0}

CORRECTNESS_SYSTEM = """You grade an answer against a reference answer.

Compare the meaning, not the wording: an answer that states the reference's facts is correct even if it
says more, as long as nothing it adds contradicts the reference. An answer that gets some but not all of
the reference's facts is partially correct. An answer that misses the facts, contradicts them or declines
to answer is incorrect.

Reply with one JSON object and nothing else:
{"verdict": "correct" | "partially correct" | "incorrect", "reason": "<one sentence>"}"""

CORRECTNESS_USER = """Question:
{question}

Reference answer:
{reference}

Answer to grade:
{answer}"""

FAITHFULNESS_SYSTEM = """You check whether an answer is supported by the context it was written from.

Read every claim of the answer. It is faithful when every claim is stated in, or follows directly from,
the context; partly faithful when some claims are supported and others are not; unfaithful when its main
claims are not in the context. An answer that says the context does not hold the answer is faithful.

Reply with one JSON object and nothing else:
{"verdict": "faithful" | "partly faithful" | "unfaithful", "reason": "<one sentence>"}"""

FAITHFULNESS_USER = """Context:
{context}

Question:
{question}

Answer to check:
{answer}"""

PROMPTS = {
    "correctness": (CORRECTNESS_SYSTEM, CORRECTNESS_USER, CORRECTNESS_VERDICTS),
    "faithfulness": (FAITHFULNESS_SYSTEM, FAITHFULNESS_USER, FAITHFULNESS_VERDICTS),
}


def judge_messages(kind: str, **fields: str) -> list[dict[str, str]]:
    """The messages of one judgement (``kind``: "correctness" or "faithfulness"); the fields are data, filled
    in one pass so braces in an answer or a context are never read as placeholders."""
    system, user, _ = PROMPTS[kind]
    user = _FIELD.sub(lambda m: fields.get(m.group(1), m.group(0)), user)  # one pass: values are never re-read
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
