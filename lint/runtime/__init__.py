"""Process-lifetime policies: forking helpers, garbage-collector and exit tricks, and what keeps start-up
cheap (records instead of dataclasses, lazily compiled patterns), in one documented place."""
