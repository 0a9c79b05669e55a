"""ToMATO (Shinoda et al., AAAI 2025): four-option questions about the mental states of the speakers of conversations between two LLM agents."""
