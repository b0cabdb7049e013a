"""Every page's frame: the app state, the page opening, guards, background runs, escaping, labels."""
