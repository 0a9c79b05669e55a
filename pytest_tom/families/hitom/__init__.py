"""Hi-ToM (He et al., 2023): higher-order beliefs, ToM orders 0 to 4, with and without
deceptive communication, scored per order, per story length and as joint accuracy."""
