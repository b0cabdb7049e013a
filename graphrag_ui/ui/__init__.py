"""Streamlit building blocks: tables, graph view, budget chart, parameter widgets, state."""
