"""ToMBench (Chen et al., ACL 2024): 20 task files of multiple-choice questions over 31 abilities, English and Chinese."""
