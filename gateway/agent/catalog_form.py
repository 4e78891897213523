"""How the planner is shown what it may call: the documented stubs at once, or the one-line
directory with sheets on demand; `auto` (the default) picks by the size of the stubs.

The stubs form is what small models need: with Qwen2.5-Coder-1.5B on a CPU it passed 26 of
27 evaluation scenarios where the directory form passed 8 (BENCHMARKS.md), in one planner
call instead of two. Its cost is prompt tokens, which grow with the catalog, so `auto` shows
the stubs while the whole stubs-form system prompt fits STUBS_TOKEN_BUDGET, and the
directory beyond it (a catalog of hundreds of use cases).

The budget, measured with the model's own tokenizer (llama.cpp's /tokenize on
Qwen2.5-Coder-1.5B): the bank's stubs-form prompt is 1,662 tokens for a customer and 1,755
for a teller or an admin (the directory form: 528 and 557). The prompt must leave room in
the smallest context a local server commonly gives (4,096 tokens: Ollama's default) for the
reply (SLUICE_LLM_MAX_TOKENS, 1,024 by default) and the conversation (up to 12 earlier turns
of request and status line, and the request): 4,096 - 1,024 - about 570 leaves 2,500. On a
CPU that reads 5 to 30 tokens a second, 2,500 tokens is also the most a first call should
read (2 to 8 minutes at worst; later calls reuse the server's prompt cache, as the rules
come first). Tokens are estimated from characters at 3.5 a token: the bank's prompts
measured 3.8 to 4.0 characters a token, so the estimate errs towards the directory.
"""

from __future__ import annotations

import math
from typing import Literal, get_args

CatalogForm = Literal["auto", "directory", "stubs"]
CATALOG_FORMS: tuple[CatalogForm, ...] = get_args(CatalogForm)
STUBS_TOKEN_BUDGET = 2_500
CHARS_PER_TOKEN = 3.5


def estimated_tokens(text: str) -> int:
    """A prompt's tokens, estimated on the high side from its characters."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def uses_stubs(form: CatalogForm, stubs_prompt: str) -> bool:
    """Whether the planner gets the stubs form: as configured, or for `auto` when the
    stubs-form prompt fits the budget."""
    if form != "auto":
        return form == "stubs"
    return estimated_tokens(stubs_prompt) <= STUBS_TOKEN_BUDGET
