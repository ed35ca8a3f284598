"""HDF5 datasets: recipes, the file format (datasets/FORMAT.md), generators, readers."""

from surrogate.datasets.executors import open_executor
from surrogate.datasets.format import FORMAT_NAME, FORMAT_VERSION
from surrogate.datasets.generator_output import GeneratedData
from surrogate.datasets.generators import RECIPE_KINDS, generate_dataset
from surrogate.datasets.hashing import content_hash
from surrogate.datasets.maxwell import add_relative_noise, generate_maxwell
from surrogate.datasets.parallel import ordered_map
from surrogate.datasets.reader import Dataset, FamilyData, read_dataset, validate_dataset
from surrogate.datasets.recipes import (
    TOY_DEFAULTS,
    MaxwellFamilyRecipe,
    MaxwellRecipe,
    ToyRecipe,
    load_recipe_toml,
    recipe_from_dict,
)
from surrogate.datasets.sequence.lem_benchmark_recipes import AddingRecipe, FitzHughNagumoRecipe
from surrogate.datasets.sequence.lem_benchmarks import generate_adding, generate_fitzhugh_nagumo
from surrogate.datasets.sequence.maxwell_td import (
    MaxwellTDRecipe,
    generate_maxwell_td,
    sample_snapshots,
)
from surrogate.datasets.splits import make_splits, parse_split
from surrogate.datasets.streaming import GenerationInterrupted, StreamedDataset, write_streamed
from surrogate.datasets.summary import dataset_summary
from surrogate.datasets.toy import generate_toy
from surrogate.datasets.writer import write_dataset

__all__ = [
    "FORMAT_NAME", "FORMAT_VERSION", "Dataset", "read_dataset", "validate_dataset",
    "write_dataset", "content_hash", "MaxwellRecipe", "recipe_from_dict", "load_recipe_toml",
    "make_splits", "parse_split", "generate_maxwell", "generate_dataset", "GeneratedData",
    "add_relative_noise", "RECIPE_KINDS", "dataset_summary", "ToyRecipe", "TOY_DEFAULTS",
    "generate_toy", "FitzHughNagumoRecipe", "AddingRecipe", "generate_fitzhugh_nagumo",
    "generate_adding", "MaxwellTDRecipe", "generate_maxwell_td", "sample_snapshots",
    "open_executor", "ordered_map", "StreamedDataset", "write_streamed", "GenerationInterrupted",
    "FamilyData", "MaxwellFamilyRecipe",
]
