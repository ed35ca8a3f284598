"""HDF5 datasets: recipes, the file format (datasets/FORMAT.md), generators, readers.

The names below load on first use (PEP 562): ``import surrogate.datasets`` imports neither
h5py nor any generator; ``surrogate.datasets.read_dataset`` loads the reader then.
"""

from surrogate.core.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "executors": ("open_executor",),
    "format": ("FORMAT_NAME", "FORMAT_VERSION"),
    "generator_output": ("GeneratedData",),
    "generators": ("RECIPE_KINDS", "generate_dataset"),
    "hashing": ("content_hash",),
    "maxwell": ("add_relative_noise", "generate_maxwell"),
    "sequence.maxwell_td": ("MaxwellTDRecipe", "generate_maxwell_td"),
    "sequence.td_snapshots": ("sample_snapshots",),
    "parallel": ("ordered_map",),
    "reader": ("Dataset", "FamilyData", "read_dataset", "validate_dataset"),
    "recipe_migration": ("N0_TD_SETTINGS", "stored_recipe"),
    "recipes": ("TOY_DEFAULTS", "MaxwellFamilyRecipe", "MaxwellRecipe", "ToyRecipe",
                "load_recipe_toml", "recipe_from_dict"),
    "sequence.lem_benchmarks": ("generate_adding", "generate_fitzhugh_nagumo"),
    "sequence.lem_benchmark_recipes": ("AddingRecipe", "FitzHughNagumoRecipe"),
    "splits": ("make_splits", "parse_split"),
    "streaming": ("GenerationInterrupted", "StreamedDataset", "write_streamed"),
    "summary": ("dataset_summary",),
    "toy": ("generate_toy",),
    "writer": ("write_dataset",),
})
