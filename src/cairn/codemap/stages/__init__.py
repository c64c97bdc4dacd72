"""The index run's stages: find changes (changes.py) -> store (store.py) -> derive (derive.py).

Each stage is a function of the one `Run` (state.py): the run's inputs, the meta rows as it found
them (index_meta.py) and what each stage leaves for the next. Their order is `stages()` in
codemap/indexer.py, which takes the index lock, opens the index and runs them.
"""
