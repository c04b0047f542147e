"""How closely the character encoders reproduce their teachers' word rows, and at what speed."""
