"""The generator of the bundled demo campaign (src/trainbudget/demo_data/): the story as code."""
