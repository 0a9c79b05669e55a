"""SimpleToM (Gu et al., ICLR 2026): short stories each asked three ways (is the person aware of the key fact, what will they do, is that reasonable)."""
