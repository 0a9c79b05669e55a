"""MMToM-QA (Jin et al., 2024), text only: belief and goal inference from a home and a
person's actions, two options per question, scored per question type."""
