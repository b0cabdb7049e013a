"""Streamlit building blocks: tables, graph view, budget chart, parameter widgets, state."""

from graphrag_ui import i18n as _i18n
from graphrag_ui.ui.i18n import legacy_tr as _legacy_tr

_i18n.LEGACY = _legacy_tr  # plain-English package messages, until every one is marked with msg
