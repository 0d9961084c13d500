"""What a reader model file says about how abstain must read with it: entries of the ONNX file's
metadata, written by training (:func:`abstain.train.export.mark`) and read by
:class:`~abstain.rerank.reader.OnnxReader`. Standard library only, so that the training machine,
which has none of abstain's own dependencies, writes what abstain reads."""

from __future__ import annotations

READS_KEY = "abstain.reads"
"""The entry that says how the model reads a window."""
IN_CONTEXT = "in-context"
"""That entry's value for a model trained on windows read after their page title and headings
(:func:`abstain.rerank.windows.in_context`); a file without it reads plain windows (v2, v3)."""
