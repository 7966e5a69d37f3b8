"""The webhook inbox: listener, URL rules, tunnel supervisor, health."""
