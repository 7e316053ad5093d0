"""Django's PostgreSQL backend with a pooled connection checked, without waiting, when it is borrowed."""
