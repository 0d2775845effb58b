"""InfiniBand credit-loop analysis: (link, VL) channel dependencies from LFTs and SL2VL tables."""
