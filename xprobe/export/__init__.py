"""Export: what xprobe builds, in the layouts researchers load elsewhere.

Reads a finished probing folder (``xprobe extract``) or result records (``xprobe probe``);
writes a Hugging Face datasets folder (:func:`~xprobe.export.datasets.export_datasets`: one
configuration per task, parquet splits, a dataset card from the manifest), and a tidy table
plus mteb's results layout (:func:`~xprobe.export.results.export_results`). An export goes to
a temporary folder renamed into place at the end, and never replaces a different existing
export unless asked (:mod:`xprobe.export.target`). Needs ``pip install 'xprobe[export]'``.
"""
