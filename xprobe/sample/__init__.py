"""A generated bilingual sample: aligned English and German sentences with gold UD annotation.

A small seeded grammar (:mod:`.grammar`) over a lexicon of real core words and pseudo-words
(:mod:`.lexicon`) writes sentences that cover what the nine probing tasks look at; realisers
(:mod:`.realize`) give their English and German words, features and trees. From them
:func:`generate_sample` writes treebanks, MediaWiki dumps, an NLI set, a parallel corpus, a
dictionary and XNLI-style files, byte-identical for the same seed (``xprobe sample``).
"""

from xprobe.sample.build import LANGS, SampleSizes, generate_sample, sentence_pairs

__all__ = ["LANGS", "SampleSizes", "generate_sample", "sentence_pairs"]
