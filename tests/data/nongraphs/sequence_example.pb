


length


tokens



	