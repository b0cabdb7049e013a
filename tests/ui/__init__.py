"""Pages and UI parts run headless (Streamlit's AppTest)."""
