"""Package data (controller.data.web): read through controller.data, never imported."""
