from abstain.stores.base import (
    DEFAULT_WORKSPACE,
    DocumentInfo,
    EmbedderInfo,
    Store,
    StoredChunk,
    open_store,
)

__all__ = ["DEFAULT_WORKSPACE", "DocumentInfo", "EmbedderInfo", "Store", "StoredChunk",
           "open_store"]
