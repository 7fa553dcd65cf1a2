
B

label


pixels
ÍÌÌ=ÍÌL>š™™>

caption	

a cat