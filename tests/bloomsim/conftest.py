import pytest

from bloomsim.rules import default_rules


@pytest.fixture
def rules():
    return default_rules()
