"""The reference web client: a page at ``/`` and its ES modules and styles, served as static files."""
