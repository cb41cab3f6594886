"""Package data (controller.data.hardware): read through controller.data, never imported."""
