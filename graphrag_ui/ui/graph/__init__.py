"""The interactive graph: the vis-network component, its layout, styles, search, selection and details."""
